"""What the room sees: the projector (the tournament's watch link), each table's link
(what its QR code opens), and the page of the tables' QR codes to print."""

import hashlib
from functools import lru_cache
from urllib.parse import urlencode

import segno
from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from matches import conditional, limits, links
from matches.models import Match
from matches.views.answers import go, not_found, too_many

from .. import board as boards
from .. import table_sheet
from ..models import Table, Tournament, tournament_link_gone
from .organising import board_fragment, organised


def _watched(token) -> Tournament:
    tournament = Tournament.objects.filter(watch_token=token).first()
    if tournament is None:
        raise Http404
    return tournament


def projector_context(request, tournament):
    board = boards.read(tournament)
    return {
        "tournament": tournament,
        "board": board,
        "etag": conditional.etag(board.version, "watch"),
        "poll_ms": settings.SHEET_POLL_MS,
        "heartbeat_ms": settings.LIVE_HEARTBEAT_MS,
        "poll_url": reverse("tournament_watch_board", args=[tournament.watch_token]),
        "events_url": reverse("api-tournament-watch-events", args=[tournament.watch_token]),
    }


@limits.guarded(too_many)
@require_GET
def watch(request, token):
    """The projector: standings, every table's series and its rubber's games, the
    round's draw; no sign-in, nothing to click, and it follows by itself."""
    tournament = Tournament.objects.filter(watch_token=token).first()
    if tournament is None:
        return not_found(request, tournament_link_gone())
    return render(request, "tournaments/watch.html", projector_context(request, tournament))


@limits.guarded(too_many)
@require_GET
def watch_board(request, token):
    return board_fragment(
        request, _watched(token), "tournaments/watch.html#board", projector_context, "watch"
    )


@limits.guarded(too_many)
@require_GET
def table(request, token):
    """A table's link, what its QR code opens: the join page of the rubber in play
    there (a tap on one's name takes the seat; a seated phone goes to its sheet), or,
    while the table waits for its next series, a page that says so."""
    table = Table.objects.filter(token=token).select_related("tournament", "night").first()
    if table is None:
        return not_found(request, tournament_link_gone())
    in_play = Match.objects.filter(night=table.night, status=Match.IN_PLAY).exists()
    if in_play:
        return go(request, reverse("join", args=[table.night.join_token]))
    if request.htmx:
        return HttpResponse()  # still waiting: nothing to swap
    last = (
        Match.objects.filter(night=table.night)
        .prefetch_related("seats")
        .order_by("-created", "-id")
        .first()
    )
    context = {
        "table": table,
        "tournament": table.tournament,
        # The table's last series was a walkover: said as such, not as a rubber ended.
        "walkover": _("Walkover: won by %(pair)s") % {"pair": last.side_names()[last.walkover]}
        if last is not None and last.walkover
        else "",
        "poll_ms": settings.SHEET_POLL_MS,
        "heartbeat_ms": settings.LIVE_HEARTBEAT_MS,
    }
    return render(request, "tournaments/waiting.html", context)


@lru_cache(maxsize=256)
def _qr(url, title):
    return segno.make(url, error="m").svg_inline(scale=5, light="#fff", svgclass="qr", title=title)


@require_GET
def table_cards(request, pk):
    """Every table's QR code, one a card, to print and put on the tables."""
    if not request.user.is_authenticated:
        raise Http404
    tournament = organised(request, pk)
    cards = []
    for table in tournament.tables.all():
        url = links.absolute(request, reverse("table", args=[table.token]))
        title = _("QR code of table %(number)s") % {"number": table.number}
        cards.append({"table": table, "url": url, "qr": mark_safe(_qr(url, title))})
    return render(request, "tournaments/tables.html", {"tournament": tournament, "cards": cards})


@limits.guarded(too_many)
@require_GET
def series_next(request, token, series_id):
    """Where the pairs of a finished series at a table go next: what the table's phones
    show once it is over, asking again every few seconds until it is settled (a table
    of the next round, out of the knockout, the tournament over). Anyone at the table
    may ask: its link is on the table."""
    table = Table.objects.filter(token=token).select_related("tournament").first()
    if table is None:
        return not_found(request, tournament_link_gone())
    tournament = table.tournament
    links = {
        number: reverse("table", args=[token])
        for number, token in tournament.tables.values_list("number", "token")
    }
    going = table_sheet.whats_next(tournament, series_id, links)
    if going is None:  # no such series here, or (corrected meanwhile) not over
        going = []
    # The asking phone's own pair (``side``: where it sits), first.
    mine = request.GET.get("side")
    going.sort(key=lambda pair: pair.side != mine)
    # What the card says, as its next ask names it: asked again with nothing new, it is
    # left in place (204), so a tap on its link is never lost to a card swapped under it.
    said = repr((going, mine, get_language())).encode()
    shown = hashlib.blake2b(said, digest_size=8).hexdigest()
    if request.htmx and request.GET.get("shown") == shown:
        return HttpResponse(status=204)
    asking = {"side": mine} if mine in ("a", "b") else {}
    url = reverse("series_next", args=[token, series_id])
    context = {
        "tournament": tournament,
        "series_id": series_id,
        "going": going,
        "mine": mine,
        "settled": bool(going) and all(pair.settled for pair in going),
        "next_url": f"{url}?{urlencode({**asking, 'shown': shown})}",
        "poll_ms": settings.SHEET_POLL_MS,
    }
    template = "tournaments/next.html#next" if request.htmx else "tournaments/next.html"
    return render(request, template, context)
