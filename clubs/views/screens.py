"""The café's TV: the club's board by its watch link, no sign-in, nothing to click; the
leaderboard and the season's table, following the club by itself (its stream, and a
poll answered 304 while the club's version is the one on the screen)."""

from django.conf import settings
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from matches import conditional, limits
from matches.views.answers import not_found, too_many

from .. import board as boards
from ..models import Club, club_link_gone
from ..season import shown as season_shown

# As many of the leaderboard as a 1920×1080 screen shows in type read across a café.
BOARD_LINES = 12
VIEWER = "club-board"


def board_context(request, club):
    season = season_shown(club.seasons.all(), timezone.localdate())
    lines = boards.leaderboard(club)
    return {
        "club": club,
        "lines": [line for line in lines if line.rubbers][:BOARD_LINES],
        "unrated": sum(1 for line in lines if not line.rubbers),
        "table": boards.season_table(club, season) if season else None,
        "etag": conditional.etag(club.version, VIEWER),
        "poll_ms": settings.SHEET_POLL_MS,
        "heartbeat_ms": settings.LIVE_HEARTBEAT_MS,
        "poll_url": reverse("club_board_fragment", args=[club.watch_token]),
        "events_url": reverse("api-club-watch-events", args=[club.watch_token]),
    }


@limits.guarded(too_many)
@require_GET
def board(request, token):
    club = Club.objects.filter(watch_token=token).first()
    if club is None:
        return not_found(request, club_link_gone())
    return render(request, "clubs/board.html", board_context(request, club))


@limits.guarded(too_many)
@require_GET
def board_fragment(request, token):
    """The board as its poll asks for it: 304 while the club's version is the one the
    screen shows."""
    version = Club.objects.filter(watch_token=token).values_list("version", flat=True).first()
    if version is None:
        raise Http404
    tag = conditional.etag(version, VIEWER)
    unchanged = conditional.not_modified(request, tag)
    if unchanged is not None:
        return unchanged
    club = Club.objects.get(watch_token=token)
    response = render(request, "clubs/board.html#board", board_context(request, club))
    return conditional.validators(response, tag)
