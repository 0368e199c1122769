"""The garbage collector in a worker of bin/serve (scoresheet/asgi.py).

A collection walks the objects the collector tracks in the generations it collects, and
holds every thread of the worker while it does: about a microsecond an object, measured
on these machines. Three things keep the walks short:

- ``settle``: what the worker loads as it starts (Django, the app, its templates and
  translations: over 100,000 objects) is set aside (``gc.freeze``) once loaded.
- ``SetAside``: after each full collection, what survived it is set aside too. That is
  mostly the open event streams (about 120 objects each with its connection, held for as
  long as a phone shows the sheet), which otherwise every full collection walked again:
  70 to 110 ms with 650 streams a worker, every few seconds under load, against 5 to 30
  ms set aside.

An object set aside is still freed as soon as nothing refers to it, but the collector no
longer looks for cycles among such objects: a cycle that becomes garbage there (a
stream's objects once it ended, say) stays. So once what is set aside has doubled since
everything was last walked, it all goes back to the collector (``gc.unfreeze``), whose
next full collection walks it all, frees those cycles and sets the survivors aside
again; unless most of it was walked just now (``SetAside``). The memory held so is at
most what is alive, twice (two and a half times between two counts: ``SetAside``);
everything is walked once each time the objects alive double, or as often as leftover
cycles double them.

- ``between_requests``: the young generations are collected when no request is in the
  worker's threads, the moment a request's objects in cycles (Django's request and its
  lazy user, a sheet's reading: about 300 a sheet rendered) are all garbage. CPython
  collects when its count of new objects passes a threshold, mostly in the middle of
  requests: whatever was alive then moved on to an older generation, there to be walked
  by the next full collection (every few seconds under load, 20 to 60 ms each), and held
  every thread a second time. Its own collections still come, ``BACKSTOP`` times later,
  for a worker never idle.
"""

import gc

OLDEST = 2  # the generation a full collection collects (with the younger two)
# CPython's own thresholds (its defaults): a young collection once the objects tracked
# are YOUNG more than when the last one ran; every MIDDLE of those, the middle generation
# too; and every OLDER of those, all three.
YOUNG, MIDDLE, OLDER = 700, 10, 10
BACKSTOP = 10  # in a worker, CPython collects by itself only past YOUNG * BACKSTOP


class SetAside:
    """A ``gc.callbacks`` callback: after every full collection, its survivors are set
    aside, until they have doubled since the last walk of everything.

    What is set aside is counted only when it may have doubled. Counting it
    (``gc.get_freeze_count``) follows every object set aside, through memory nothing
    has touched for long: 55 to 77 ms with 4,000 streams a worker, every full
    collection, three times as long as the collection itself, and as long holding every
    thread. What a collection leaves is counted instead, as it is set aside (its
    survivors, just walked: 2 to 9 ms after an ordinary full collection), and their sum
    since the last count is as much as can be set aside now (less what was freed
    meanwhile)."""

    def __init__(self):
        self.walked = max(gc.get_freeze_count(), 1)  # set aside after that walk
        self.at_most = self.walked  # set aside now, at most
        self.count_past = 2 * self.walked  # counted once at_most passes this
        self.handed_back = False  # the next full collection walks everything

    def __call__(self, phase, info):
        if phase != "stop" or info["generation"] != OLDEST:
            return
        survivors = len(gc.get_objects(OLDEST))
        gc.freeze()
        if self.handed_back:  # everything was walked, and is set aside again
            self.walked = self.at_most = max(survivors, 1)
            self.count_past = 2 * self.walked
            self.handed_back = False
        elif survivors >= self.at_most:
            # Most of what is set aside was walked just now (a crowd of streams opened at
            # once, after a restart): what was set aside before, cycles and all, is at
            # most as much as is alive, so all of it is at most twice that, as after a
            # walk of everything. Handing it all back would walk it again (370 ms with
            # 4,000 streams a worker).
            self.walked = survivors
            self.at_most += survivors
            self.count_past = 2 * self.walked
        else:
            self.at_most += survivors
            if self.at_most > self.count_past:
                self.at_most = gc.get_freeze_count()
                if self.at_most > 2 * self.walked:
                    gc.unfreeze()
                    self.handed_back = True
                else:
                    # Found short of doubling, it is counted again only once collections
                    # have left half as much as was walked, however near it came: one
                    # that came within a collection's survivors of doubling was counted
                    # after every full collection (70 to 96 ms each, every 5 s, with
                    # 4,000 streams a worker), and was never handed back.
                    self.count_past = max(2 * self.walked, self.at_most + self.walked // 2)


def settle():
    """Set aside what the worker has loaded, and from now on what each full collection
    leaves (``SetAside``); leave the young generations to ``between_requests``."""
    gc.freeze()
    if not any(isinstance(callback, SetAside) for callback in gc.callbacks):
        gc.callbacks.append(SetAside())
    gc.set_threshold(YOUNG * BACKSTOP, MIDDLE, OLDER)


def between_requests():
    """The collection CPython would have made by now (by its thresholds), made while no
    request is in the worker's threads: the event loop calls it then."""
    young, middle, older = gc.get_count()
    if young >= YOUNG:
        gc.collect(OLDEST if older >= OLDER else 1 if middle >= MIDDLE else 0)
