"""The sheet fragment, rendered once for each version and each point of view and served
from memory to every request that asks for it again: the phones of one side after the
stream told of a change, the same person's second phone, every watch screen of a link.

A fragment differs by its point of view (Nós is the viewer's side; the host's extras;
the undo its author sees; the withdraw button on one's own notes: ``point_of_view``) or
is anyone's, on a watch link; and by language; and by the request only in its CSRF token
and its ETag (which names the person), which go in holes filled for each request. A
version never changes once written, so a fragment kept under its version is never
stale: the next change is a new key; nor is the reading they are rendered from
(``keep_reading``), so each point of view after the first renders without reading the
sheet again. Kept in this process ("sheets", in memory: see settings.CACHES), since
rendering one costs less than fetching it from elsewhere; and only for a match's newest
version: what was kept for the one before goes as the next is kept (``_keep``), so the
memory holds the tables in play, whatever their pace, and not their past.

The phones told of one change ask at the same moment, before any of them has rendered
it: ``first_at`` lets the first of a version's requests in this process read it while the
others wait for it, briefly, and then find their fragment kept if their point of view is
the same (the two players of the other side, say), or its reading if it is not.
"""

import contextlib
import pickle
import threading

from django.core.cache import caches
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.html import escape
from django.utils.translation import get_language

from . import csrf

CSRF_HOLE = "\x00csrf\x00"  # no token ever holds a NUL
ETAG_HOLE = "\x00etag\x00"


class Name(str):
    """A name in the "sheets" cache, which knows the match and the version its value is
    of (``_keep`` forgets a version's names when the next is kept)."""

    def __new__(cls, name, match, version):
        made = super().__new__(cls, name)
        made.match, made.version = match, version
        return made


def key(kind, match, version, *parts) -> Name:
    """The cache key of one fragment: its kind (a sheet, a watch screen), the match and
    its version, what picks the viewer, and the language it is in."""
    name = ":".join(["fragment", kind, str(match), str(version), *map(str, parts), get_language()])
    return Name(name, match, version)


# Points of view ------------------------------------------------------------------


def viewers(match, sheet) -> dict:
    """Who sees what of this version of ``match`` (read with ``for_sheet``; ``sheet``
    its reading by a member or its host): the host, each seated person's side, the
    author of the entry an undo would take back, the authors of the notes standing.
    Enough to say anyone's point of view at this version without reading it again."""
    return {
        "host": match.host_id,
        "seats": {seat.user_id: seat.side for seat in match.seats.all() if seat.user_id},
        "latest": sheet.latest_by,
        "authors": sorted({note.author_id for note in match.notes.all() if not note.withdrawn}),
    }


def remember_viewers(pk, version, seen) -> None:
    _keep(key("viewers", pk, version), seen)


def viewers_of(pk, version) -> dict | None:
    return caches["sheets"].get(key("viewers", pk, version))


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


def keep_reading(match) -> bytes:
    """Keep ``match``, as read for the sheet of its host or a member
    (``one_sheet(acting=True)``), under its version: the other points of view of that
    version render from it in this process, and read only who asks. A version's reading
    never changes: one kept already stays, and is not pickled again. Returns the reading
    as kept (``pickled``): a change's notice carries it so (``live``)."""
    reading = caches["sheets"].get(_reading_name(match.pk, match.version))
    if reading is None:
        reading = pickled(match)
        keep_pickled_reading(match.pk, match.version, reading)
    return reading


def pickled(match) -> bytes:
    """A reading as it is kept: pickled (each caller of ``reading_at`` gets its own)."""
    return pickle.dumps(match, pickle.HIGHEST_PROTOCOL)


def keep_pickled_reading(pk, version, reading: bytes) -> None:
    """Keep the ``pickled`` reading of match ``pk`` at ``version`` (a notice carries it
    so: ``live.sheet_in``); callers look first whether one is kept (``reading_kept``),
    before making or unsigning theirs. Nothing is unpickled here."""
    _keep(_reading_name(pk, version), reading)


def reading_kept(pk, version) -> bool:
    return caches["sheets"].has_key(_reading_name(pk, version))


def _reading_name(pk, version) -> Name:
    return Name(f"reading:{pk}:{version}", pk, version)


def reading_after_change(match):
    """``match`` read for its sheet as the change just made to it left it, in the
    change's transaction (``Match.as_changed``): the reading its answer is made from,
    kept for the other phones' fetches once the change has committed (rolled back, its
    version is the next change's)."""
    match = match.as_changed()
    transaction.on_commit(lambda: keep_reading(match))
    return match


def reading_at(pk, version):
    """Match ``pk`` as read at ``version`` by a request of this process, or None. Each
    caller has a copy of its own, which says the version it is as read (``_kept_at``:
    a change that locks it at that version has nothing to read again)."""
    reading = caches["sheets"].get(_reading_name(pk, version))
    if reading is None:
        return None
    match = pickle.loads(reading)  # pickled here, or signed
    match._kept_at = version
    return match


# Keeping and serving ----------------------------------------------------------------

# The versions being read by a request of this process now, each with what its waiters
# wait on. A wait is short (one render) and bounded: past WAIT, a waiter renders too.
_reading: dict[str, threading.Event] = {}
_reading_guard = threading.Lock()
WAIT = 0.5  # seconds


@contextlib.contextmanager
def first_at(name):
    """Around reading (and keeping) a version named ``name``: the first request in this
    process reads it; one that comes while it does waits until it is done, then goes on
    and finds what it kept."""
    with _reading_guard:
        under_way = _reading.get(name)
        if under_way is None:
            _reading[name] = mine = threading.Event()
    if under_way is not None:
        under_way.wait(WAIT)
        yield
        return
    try:
        yield
    finally:
        with _reading_guard:
            del _reading[name]
        mine.set()


def kept(request, name, etag=None) -> HttpResponse | None:
    """The fragment kept under ``name``, for this request (with ``etag`` in it); None if
    there is none, or if the request has messages waiting that a fresh render would show."""
    if _messages_waiting(request):
        return None
    html = caches["sheets"].get(name)
    return None if html is None else HttpResponse(_filled(html, request, etag))


def rendered(request, name, template, context, *, keep=True) -> HttpResponse:
    """``template`` rendered for this request, and kept under ``name`` (with ``keep``)
    for the next request that asks for it."""
    if not keep or _messages_waiting(request):
        return render(request, template, context)
    holes = {"csrf_token": CSRF_HOLE, "etag": ETAG_HOLE, "messages": ()}
    response = render(request, template, {**context, **holes})
    html = response.content.decode()
    _keep(name, html)
    response.content = _filled(html, request, context.get("etag"))
    return response


# What each match has kept in this process, under "kept:<match>" in the cache itself (so
# that it goes with the least recently used, like what it names): its newest version
# and the names kept for it.
_kept_guard = threading.Lock()


def _keep(name: Name, value) -> None:
    """Keep ``value`` under ``name``, a name of its match's newest version here: the
    first kept of a newer version forgets every name kept for the one before, which no
    request asks for again (nothing is read at an old version; a fetch told of an old
    one gets the newest). Nothing is kept of a version older than one kept already."""
    sheets = caches["sheets"]
    index = f"kept:{name.match}"
    with _kept_guard:
        version, names = sheets.get(index) or (name.version, ())
        if name.version < version:
            return
        if name.version > version:
            sheets.delete_many(names)
            names = ()
        if name not in names:
            sheets.set(index, (name.version, (*names, str(name))))
        sheets.set(name, value)  # under the guard: never after its version was forgotten


def _filled(html, request, etag) -> str:
    if CSRF_HOLE in html:
        html = html.replace(CSRF_HOLE, csrf.token(request))
    # The ETag goes in an attribute, its quotes escaped as the template would have.
    return html.replace(ETAG_HOLE, escape(etag or "")) if ETAG_HOLE in html else html


def _messages_waiting(request) -> bool:
    """Whether Django's messages hold something for this request (a plain form's
    answer, after its redirect): those are shown once, by a render of their own."""
    storage = getattr(request, "_messages", None)
    return storage is not None and len(storage) > 0
