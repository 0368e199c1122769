"""Conditional requests, for the pages and the API alike.

A sheet's ETag carries its version, so a phone that already has this version
gets ``304 Not Modified`` and no body. Django's own tools decide: the poll views
use ``condition``, and ``not_modified`` asks ``get_conditional_response``.
"""

from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.http import parse_etags
from django.utils.translation import get_language


def etag(version, viewer="") -> str:
    """A sheet's ETag: its version and, where the body differs by who looks and in
    which language (the pages: Nós is whoever looks), the viewer and the language."""
    if viewer:
        return f'"{version}-{viewer}-{get_language()}"'
    return f'"{version}"'


def watching(rubber) -> str:
    """Who looks, in a watch link's ETag: a watch screen, on this rubber (its pk).
    A watch link follows its night, and the next rubber's version starts again
    from 1: the version alone could answer 304 to a screen showing the last one."""
    return f"w{rubber}"


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


def seen_version(request) -> str | None:
    """The version an If-Match header names (the ETag the person's sheet came with),
    or None without one; ``values.read_version`` refuses anything else."""
    tags = [tag for tag in parse_etags(request.headers.get("If-Match", "")) if tag != "*"]
    if not tags:
        return None
    return tags[0].removeprefix("W/").strip('"').split("-")[0]
