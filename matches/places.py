"""Where a rubber stands beyond its night: the apps built on matches say it.

A rubber may be one of something bigger (a club tournament's series, say) that its sheet
shows and the API answers. ``matches`` names no such app: the app registers, as it starts
(``AppConfig.ready``), the relations of the match's night to read with every sheet
(joined to the match's own query, so an ordinary rubber costs no query more) and how to
read the rubber's place from them (``sheet.read`` asks).
"""

from collections.abc import Callable

_related: list[str] = []
_readers: list[Callable] = []


def register(read: Callable, *, related=()) -> None:
    """``read(match)`` says where a rubber read for its sheet stands (a plain value the
    sheet shows), or None; ``related`` are ``select_related`` lookups from the match to
    read with it, through its night."""
    for lookup in related:
        if lookup not in _related:
            _related.append(lookup)
    if read not in _readers:
        _readers.append(read)


def related() -> list[str]:
    return list(_related)


def place_of(match):
    """Where ``match`` stands, as the first reader that knows says; None for a rubber of
    an ordinary night."""
    for read in _readers:
        place = read(match)
        if place is not None:
            return place
    return None
