"""Conditional requests, for the pages and the API alike.

A sheet's ETag carries its version, so a phone that already has this version
gets ``304 Not Modified`` and no body. Django's own tools decide: the poll views
use ``condition``, and ``not_modified`` asks ``get_conditional_response``.
"""

from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.http import parse_etags
from django.utils.translation import gettext_lazy as _

from . import values

# Who looks, in an ETag, where the body differs by who looks: a person (Nós is
# whoever looks), a watch screen on one rubber, the host in the API (who alone sees
# the tokens). A watch link follows its night and the next rubber's version starts
# again from 1, so a screen's tag names its rubber: the version alone could answer
# 304 to a screen still showing the last one. The language is not in it: a page in
# another language is a page load, with the tag of that page.
HOST = "host"


def person(user_id) -> str:
    return f"u{user_id}"


def screen(rubber, night_version=None) -> str:
    """A watch screen on ``rubber``; the page's tag also names the night's version,
    since the night's tally beside the sheet changes with any of its rubbers."""
    return f"w{rubber}" if night_version is None else f"w{rubber}n{night_version}"


def etag(version, viewer="") -> str:
    """A sheet's ETag: its version, and who looks where that changes the body."""
    return f'"{version}-{viewer}"' if viewer else f'"{version}"'


def validators(response, tag, *, vary=()):
    """Mark a sheet's response with its ETag. Each person's sheet is their own: no
    shared cache keeps it, and the phone asks again every time, cheaply."""
    response["ETag"] = tag
    patch_cache_control(response, private=True, no_cache=True)
    if vary:
        patch_vary_headers(response, vary)
    return response


def not_modified(request, tag, *, vary=()):
    """304 when the request's If-None-Match already names ``tag``, else None."""
    response = get_conditional_response(request, etag=tag)
    return None if response is None else validators(response, tag, vary=vary)


def seen_version(request) -> int | None:
    """The version an If-Match header names (the ETag the person's sheet came with),
    or None without the header. Anything else than one of our ETags, in its quotes,
    is refused: an If-Match that were ignored would act on a sheet nobody saw."""
    header = request.headers.get("If-Match")
    if header is None:
        return None
    tags = parse_etags(header)
    if len(tags) != 1 or tags[0] == "*":
        raise values.InvalidInput(
            _('If-Match must be the ETag of the sheet you saw, in its quotes, e.g. "7".')
        )
    version = tags[0].removeprefix("W/").strip('"').split("-")[0]
    return values.read_version(version)
