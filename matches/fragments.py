"""The sheet fragment, rendered once for each version and each viewer and served from
memory to every request that asks for it again: a phone's fetch after the stream told
of a change, the same person's second phone, every watch screen of a link.

A fragment differs by who looks (Nós is whoever looks, the host's extras, whose entry
an undo takes back: a person; or anyone, on a watch link) and by language, and by the
request only in its CSRF token, which goes in a hole filled for each request. A
version never changes once written, so a fragment kept under its version is never
stale: the next change is a new key. Kept in this process ("sheets", in memory: see
settings.CACHES), since rendering one costs less than fetching it from elsewhere.
"""

from django.core.cache import caches
from django.http import HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.utils.translation import get_language

CSRF_HOLE = "\x00csrf\x00"  # no token ever holds a NUL


def key(kind, *parts) -> str:
    """The cache key of one fragment: its kind (a sheet, a watch screen), what picks
    the version and the viewer, and the language it is in."""
    return ":".join(["fragment", kind, *map(str, parts), get_language()])


def kept(request, name) -> HttpResponse | None:
    """The fragment kept under ``name``, for this request; None if there is none, or if
    the request has messages waiting that a fresh render would show."""
    if _messages_waiting(request):
        return None
    html = caches["sheets"].get(name)
    return None if html is None else HttpResponse(_filled(html, request))


def rendered(request, name, template, context, *, keep=True) -> HttpResponse:
    """``template`` rendered for this request, and kept under ``name`` (with ``keep``)
    for the next request that asks for it."""
    if not keep or _messages_waiting(request):
        return render(request, template, context)
    response = render(request, template, {**context, "csrf_token": CSRF_HOLE, "messages": ()})
    html = response.content.decode()
    caches["sheets"].set(name, html)
    response.content = _filled(html, request)
    return response


def _filled(html, request) -> str:
    return html.replace(CSRF_HOLE, get_token(request)) if CSRF_HOLE in html else html


def _messages_waiting(request) -> bool:
    """Whether Django's messages hold something for this request (a plain form's
    answer, after its redirect): those are shown once, by a render of their own."""
    storage = getattr(request, "_messages", None)
    return storage is not None and len(storage) > 0
