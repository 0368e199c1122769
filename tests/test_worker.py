"""What a worker of bin/serve holds once it has started (scoresheet/asgi.py)."""

import subprocess
import sys

from .conftest import ROOT
from .servers import production_env

# What a worker makes while it starts: Django, DRF and the app's modules, every view,
# the compiled templates and the translations (about 110,000 objects when measured).
STARTUP = 80_000
# What the collector may still walk once the worker has started: the objects made
# after the freeze, by the few imports that come later.
LEFT_TO_WALK = 20_000


def worker_says(script) -> list[int]:
    """The numbers ``script`` prints, run in a process started as a worker starts."""
    said = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=production_env("sqlite:///:memory:"),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return [int(number) for number in said.stdout.split()]


COUNT = """
import gc
import scoresheet.asgi
gc.collect()
print(gc.get_freeze_count(), len(gc.get_objects()))
"""


def test_a_started_worker_sets_what_it_loaded_aside_from_the_garbage_collector():
    # A full collection walks every object it tracks; walking the whole app held every
    # thread of a loaded worker for 60 to 100 ms, every few seconds.
    frozen, tracked = worker_says(COUNT)
    assert frozen > STARTUP
    assert tracked < LEFT_TO_WALK


# What the scripts below start from: a worker whose only collections are the full ones
# they ask for, and ``cycles``, that many objects each in a cycle of its own (as a
# stream's objects are).
IN_CYCLES = """
import gc
import scoresheet.asgi

gc.disable()  # only the collections below, each a full one

class Node:
    pass

def cycles(count):
    made = []
    for _ in range(count):
        node = Node()
        node.me = node
        made.append(node)
    return made
"""


# Cycles set aside and then dropped (a stream's objects once it ended), a quarter of what
# the worker loaded; then as many as it loaded alive, half at a time, which doubles what
# is set aside.
CYCLES = """
gc.collect()
loaded = gc.get_freeze_count()
ended = cycles(loaded // 4)
gc.collect()
walk_after_survivors = len(gc.get_objects())
del ended
gc.collect()
before_the_doubling = gc.get_freeze_count()
alive = cycles(loaded // 2)
gc.collect()
alive += cycles(loaded // 2)
gc.collect()  # what is set aside has doubled: handed back
handed_back = gc.get_freeze_count()
gc.collect()  # everything walked: the dropped cycles freed, the living set aside again
print(loaded, walk_after_survivors, before_the_doubling, handed_back,
      gc.get_freeze_count(), len(gc.get_objects()), len(alive))
"""


def test_what_survives_a_full_collection_is_set_aside_until_it_has_doubled():
    loaded, walk, before, handed_back, after, tracked, alive = worker_says(IN_CYCLES + CYCLES)
    dropped = loaded // 4  # a cycle of one object each
    # Objects that outlived a full collection are no longer walked by the next ones.
    assert walk < LEFT_TO_WALK
    # Dropped while set aside, the cycles stay (nothing walks them)...
    assert before >= loaded + dropped
    # ...until what is set aside doubles: all of it goes back to the collector, whose
    # next full collection frees those cycles and sets the rest aside again.
    assert handed_back == 0
    assert after <= before + alive - dropped
    assert tracked < LEFT_TO_WALK


# A crowd of streams opened at once (every phone, after a restart): twice as many
# objects alive as the worker loaded, walked by one full collection; then the crowd gone
# (its cycles left set aside), and half as many again as the worker loaded alive, a
# third at a time.
CROWD = """
loaded = gc.get_freeze_count()
crowd = cycles(2 * loaded)
gc.collect()
print(loaded, gc.get_freeze_count(), len(gc.get_objects()))
del crowd
alive = []
for _ in range(3):
    alive += cycles(loaded // 2)
    gc.collect()
gc.collect()
print(gc.get_freeze_count(), len(alive))
"""


def test_a_crowd_walked_once_is_set_aside_not_walked_again():
    # Handed back for having doubled what is set aside, it would all be walked again
    # by the next full collection: 370 ms with 4,000 streams a worker.
    loaded, set_aside, tracked, after_it_went, alive = worker_says(IN_CYCLES + CROWD)
    assert set_aside >= 3 * loaded
    assert tracked < LEFT_TO_WALK
    # Still, what is set aside stays within twice what was alive when it was walked: the
    # crowd's cycles are freed once what is set aside has doubled what was alive then.
    assert after_it_went < loaded + alive + LEFT_TO_WALK


# What the counting scripts below start from: a worker whose only collections are the
# full ones they ask for, each count of what is set aside noted in ``counts``.
COUNTING = """
import gc
import scoresheet.asgi

gc.disable()  # only the collections below, each a full one
count = gc.get_freeze_count
counts = []
gc.get_freeze_count = lambda: counts.append(1) or count()

loaded = count()
"""


# Full collections that set aside a little more each time, far from doubling it; then
# some that each set aside a quarter of what the worker loaded, freed before the next.
COUNTED = """
kept = []
for _ in range(10):
    kept.append([[] for _ in range(loaded // 100)])
    gc.collect()
far_from_doubled = len(counts)
for _ in range(8):
    batch = [[] for _ in range(loaded // 4)]
    gc.collect()
    del batch  # freed as it goes, set aside or not
print(far_from_doubled, len(counts), int(count() >= loaded))
"""


def test_what_is_set_aside_is_counted_only_when_it_may_have_doubled():
    # Counting it walks all of it, untouched in memory for long: 55 to 77 ms every full
    # collection with 4,000 streams a worker, three times the collection's own time.
    far_from_doubled, counted, still_aside = worker_says(COUNTING + COUNTED)
    assert far_from_doubled == 0
    # What the collections set aside adds up to a doubling only on paper (each batch was
    # freed after it): counted then, two times in eight, and nothing is handed back.
    assert counted == 2
    assert still_aside


# What is set aside brought near doubling by objects alive; then full collections that
# each set aside a tenth of what the worker loaded, freed before the next: each count
# finds it just short of doubling (the one batch alive then).
NEAR_DOUBLING = """
alive = [[] for _ in range(loaded * 17 // 20)]
gc.collect()
counts.clear()
for _ in range(10):
    batch = [[] for _ in range(loaded // 10)]
    gc.collect()
    del batch
print(len(counts), int(count() >= loaded + len(alive)))
"""


def test_what_is_set_aside_near_doubling_is_not_counted_every_collection():
    # Each count found it just short of doubling, and the next collection's survivors
    # took the sum past it again: counted after every full collection, never handed back.
    counted, still_aside = worker_says(COUNTING + NEAR_DOUBLING)
    assert counted <= 2  # 9 before
    assert still_aside


# Two requests in a worker's bridge, each leaving objects in cycles (a Django request
# leaves about 90, one that renders a sheet about 300): the first held in its thread
# while the second is answered.
BETWEEN = """
import asyncio
import gc
import threading
import weakref

import scoresheet.asgi

class Node:
    pass

held = threading.Event()
left = []  # what each request left in a cycle, weakly

def app(environ, start_response):
    if environ["PATH_INFO"] == "/held/":
        held.wait(10)
    for _ in range(1000):
        node = Node()
        node.me = node
    left.append(weakref.ref(node))
    start_response("200 OK", [])
    return [b"ok"]

bridge = scoresheet.asgi.Bridge(app, threads=2)

async def answered(path):
    async def receive():
        return {"type": "http.request", "body": b""}
    async def send(message):
        pass
    await bridge({"type": "http", "method": "GET", "path": path}, receive, send)

async def main():
    first = asyncio.ensure_future(answered("/held/"))
    await answered("/quick/")
    freed_while_one_was_in = left[0]() is None
    held.set()
    await first
    print(gc.get_threshold()[0], int(freed_while_one_was_in), int(left[0]() is None),
          int(left[1]() is None))

asyncio.run(main())
"""


def test_a_worker_collects_young_garbage_between_requests_not_during_them():
    # CPython collected when its count of new objects said so, mostly mid-request: the
    # objects of the requests in the threads then outlived it, into the generations only
    # a full collection walks, every few seconds under load, 20 to 60 ms each.
    threshold, freed_during, freed_first, freed_last = worker_says(BETWEEN)
    assert threshold > 1000  # CPython's own collections only as a backstop
    assert not freed_during  # nothing collected while a request was in a thread...
    assert freed_first and freed_last  # ...and everything once none was
