"""The sheet fragment, rendered once for each version and point of view and served from
this process's memory to every request that asks for it again: the other player of a
side after the stream told of a change, the same person's second phone, every watch
screen of a link.

A fragment differs by its point of view (Nós is the viewer's side; the host's extras;
the undo its author sees; the withdraw button on one's own notes: ``point_of_view``) or
is anyone's, on a watch link; and by language; and by the request only in its ETag (which
names the person), which goes in a hole filled for each request. It holds no CSRF token:
only htmx asks for a fragment, and htmx sends the page's token in a header.
Kept under its match's version, which every change to the sheet moves, whatever way it
comes (``Match.recount``), a fragment is never stale; and only a match's newest version
is kept, so the memory holds the tables in play, not their past. Beside the fragments,
the sheet they are rendered from (``reading``): each other point of view of a version
renders from it without reading the sheet again. The change that made a version keeps
that reading beside the match too, in its transaction (``SheetReading``), so a process
that did not make it reads one row, not the whole sheet (and the next entry answers
from that row what it did not change). Caches serve reads only: no change ever reads
what this process keeps. Why it is kept at all, and how much:
docs/decisions/0003-kept-fragments.md.
"""

import contextlib
import threading
from collections import OrderedDict

from django.contrib.messages import get_messages
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.html import escape
from django.utils.translation import get_language

from .models import SheetReading
from .sheet import played

ETAG_HOLE = "\x00etag\x00"  # no ETag ever holds a NUL
MATCHES = 2400  # the matches whose newest version is kept, the most recently used


class Kept:
    """What is kept of each match's newest version: names and values (plain text, or
    plain data), for the ``most`` matches used last. Safe for the threads of a worker."""

    def __init__(self, most=MATCHES):
        self.most = most
        self.guard = threading.Lock()
        self.matches = OrderedDict()  # match id -> (version, {name: value})

    def get(self, match, version, name):
        with self.guard:
            kept = self.matches.get(match)
            if kept is None or kept[0] != version:
                return None
            self.matches.move_to_end(match)
            return kept[1].get(name)

    def put(self, match, version, name, value) -> None:
        """Keep ``value``; the first of a newer version forgets the one before, and
        nothing is kept of a version older than one kept already."""
        with self.guard:
            kept = self.matches.get(match)
            if kept is not None and kept[0] > version:
                return
            if kept is None or kept[0] < version:
                kept = self.matches[match] = (version, {})
            kept[1][name] = value
            self.matches.move_to_end(match)
            while len(self.matches) > self.most:
                self.matches.popitem(last=False)

    def clear(self) -> None:
        with self.guard:
            self.matches.clear()


kept = Kept()


def name(kind, *parts) -> str:
    """The name of one fragment of a version: its kind (a sheet, a watch screen), what
    picks the viewer, and the language it is in."""
    return ":".join([kind, *map(str, parts), get_language()])


# Points of view ------------------------------------------------------------------


def viewers(shown, sheet) -> dict:
    """Who sees what of the version ``shown`` describes (``sheet.shared``; ``sheet``
    its reading by a member or its host): the host, each seated person's side, the
    author of the entry an undo would take back, the authors of the notes standing.
    Enough to say anyone's point of view at this version without reading it again."""
    return {
        "host": shown["host"],
        "seats": {seat["user"]: seat["side"] for seat in shown["seats"] if seat["user"]},
        "latest": sheet.latest_by,
        "authors": sorted({note["author_id"] for note in shown["notes"] if not note["withdrawn"]}),
    }


def point_of_view(seen, user_id) -> str | None:
    """What ``user_id`` sees of the sheet ``seen`` describes, as a key: their side (or
    none), whether they host, whether the undo is theirs, and, for the author of a
    note standing (who may withdraw it), the person. None for someone who may not see it:
    no fragment of it is theirs. Two people with one point of view see the same fragment."""
    side = seen["seats"].get(user_id)
    hosting = user_id == seen["host"]
    if side is None and not hosting:
        return None
    view = f"{side or '-'}{'h' if hosting else ''}{'u' if user_id == seen['latest'] else ''}"
    return f"{view}n{user_id}" if user_id in seen["authors"] else view


# The reading they are rendered from ---------------------------------------------------


def reading(pk, version) -> dict | None:
    """What match ``pk`` shows at ``version`` to those who may act on it (``sheet.shared``
    of ``for_sheet(acting=True)``): as this process keeps it, else as the change that made
    the version kept it beside the match (``SheetReading``); or None. Several threads may
    view it at once, and nothing changes it: it is viewed (``sheet.view``), never changed,
    and never a change's starting point."""
    shown = kept.get(pk, version, "reading")
    if shown is None:
        shown = SheetReading.objects.at(pk, version)
        if shown is not None:
            keep_reading(pk, version, shown)
    return shown


def keep_reading(pk, version, shown) -> None:
    kept.put(pk, version, "reading", shown)


def keep_changed(match) -> dict:
    """What ``match`` shows to those who may act on it (``sheet.played``), read again in
    a change's transaction as the change left it: kept beside the match in that
    transaction for the other processes' fetches of its version, and here once it
    commits (rolled back, its version is the next change's). A rubber with a place in
    something bigger (a tournament's) is kept here alone: its place is its app's value,
    not plain data."""
    shown = played(match)
    pk, version = match.pk, match.version
    if shown["tournament"] is None:
        SheetReading.objects.keep(pk, version, shown)
    transaction.on_commit(lambda: keep_reading(pk, version, shown))
    return shown


# The phones told of one change ask at the same moment, before any of them has read it:
# the first request of this process to read a version does, and those that come while it
# does wait for it (briefly, and at most WAIT), then find the reading kept.
_reading_now: dict[tuple, threading.Event] = {}
_reading_guard = threading.Lock()
WAIT = 0.5  # seconds


@contextlib.contextmanager
def first_to_read(pk, version):
    with _reading_guard:
        under_way = _reading_now.get((pk, version))
        if under_way is None:
            _reading_now[pk, version] = mine = threading.Event()
    if under_way is not None:
        under_way.wait(WAIT)
        yield
        return
    try:
        yield
    finally:
        with _reading_guard:
            del _reading_now[pk, version]
        mine.set()


# Keeping and serving ----------------------------------------------------------------


def served(request, match, version, fragment, etag=None) -> HttpResponse | None:
    """The fragment kept under ``fragment`` for ``match`` at ``version``, for this
    request (with ``etag`` in it); None if there is none, or if the request has messages
    waiting that a fresh render would show."""
    if _messages_waiting(request):
        return None
    html = kept.get(match, version, fragment)
    return None if html is None else HttpResponse(_filled(html, etag))


def rendered(request, match, version, fragment, template, context, *, keep=True):
    """``template`` rendered for this request, and kept under ``fragment`` for ``match``
    at ``version`` (with ``keep``) for the next request that asks for it."""
    if not keep or _messages_waiting(request):
        return render(request, template, context)
    response = render(request, template, {**context, "etag": ETAG_HOLE, "messages": ()})
    html = response.content.decode()
    kept.put(match, version, fragment, html)
    response.content = _filled(html, etag=context.get("etag"))
    return response


def _filled(html, etag) -> str:
    # The ETag goes in an attribute, its quotes escaped as the template would have.
    return html.replace(ETAG_HOLE, escape(etag or "")) if ETAG_HOLE in html else html


def _messages_waiting(request) -> bool:
    """Whether Django's messages hold something for this request (a plain form's
    answer, after its redirect): those are shown once, by a render of their own."""
    return len(get_messages(request)) > 0
