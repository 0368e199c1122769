"""What the club's players look back on: a player's record with their rating over time,
the seasons (creating one, its table), and the exports of the leaderboard, a season and
a player's record as CSV and JSON.

For the club's organisers and its players' accounts; anyone else gets the 404 of a club
that is not there. Readings are ``board``'s, as the API's are."""

import datetime
import json

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.serializers.json import DjangoJSONEncoder
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from matches import conditional, posted, values
from matches.models import Match, NotAllowed, explain
from matches.views.answers import bad_form, form_page, problem
from matches.views.answers import posted as posted_data

from .. import board as boards
from .. import chart, export, ratings
from ..models import DEFAULT_POINTS, DEFAULT_TAKING_PART, Player
from .roster import readable

# The chart's numbers listed on the page (the spreadsheet has them all).
LATEST_POINTS = 50


def _player(club, player_id) -> Player:
    player = club.players.filter(pk=player_id).first()
    if player is None:
        raise Http404
    return player


def _season(club, season_id):
    season = club.seasons.filter(pk=season_id).first()
    if season is None:
        raise Http404
    return season


@login_required
@require_GET
def player(request, pk, player_id):
    """A player's record: the rating now and over time, partners and opponents, the
    tournaments and places, the latest rubbers; it follows the club by itself."""
    club = readable(request, pk)
    return render(request, "clubs/player.html", record_context(request, club, player_id))


@login_required
@require_GET
def player_record(request, pk, player_id):
    """The record as the page's poll asks for it: 304 while the club's version is the
    one the page shows."""
    club = readable(request, pk)
    tag = conditional.etag(club.version, conditional.person(request.user.pk))
    unchanged = conditional.not_modified(request, tag)
    if unchanged is not None:
        return unchanged
    context = record_context(request, club, player_id)
    return conditional.validators(render(request, "clubs/player.html#record", context), tag)


def record_context(request, club, player_id):
    record = boards.record(club, _player(club, player_id))
    numbered = [{**point, "number": n} for n, point in enumerate(record.ratings, 1)]
    shown = [row["pk"] for row in record.history]
    return {
        "club": club,
        "record": record,
        "chart": chart.draw(record.ratings),
        "start": ratings.new_skill().rating,
        "best": max(record.ratings, key=lambda point: point["rating"], default=None),
        # The numbers behind the chart, for those who read rather than look: the latest
        # first, as far back as is worth reading in a table.
        "latest_points": numbered[::-1][:LATEST_POINTS],
        "together": boards.TOGETHER,
        # The rubbers whose page the reader may open (their own: played or hosted).
        "openable": set(
            Match.objects.played_by(request.user).filter(pk__in=shown).values_list("pk", flat=True)
        ),
        "etag": conditional.etag(club.version, conditional.person(request.user.pk)),
        "poll_ms": settings.SHEET_POLL_MS,
        "heartbeat_ms": settings.LIVE_HEARTBEAT_MS,
        "poll_url": reverse("club_player_record", args=[club.pk, record.player.pk]),
        "events_url": reverse("api-club-events", args=[club.pk]),
    }


# Seasons --------------------------------------------------------------------------------


def points_from_text(text) -> list[int]:
    """ "10, 8, 6, 5": whole numbers, a comma between each; nothing else."""
    parts = [part.strip() for part in str(text or "").split(",")]
    if parts == [""]:
        return []
    if not all(part.isascii() and part.isdigit() for part in parts):
        raise forms.ValidationError(
            _("Write the points as whole numbers with a comma between each, as in “10, 8, 6”.")
        )
    return [int(part) for part in parts]


class DayInput(forms.DateInput):
    input_type = "date"

    def __init__(self):
        super().__init__(format="%Y-%m-%d")


class SeasonForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=80)
    # A date input reads and sends ISO days whatever the page's language.
    start = forms.DateField(label=gettext_lazy("First day"), widget=DayInput)
    end = forms.DateField(label=gettext_lazy("Last day"), widget=DayInput)
    points = forms.CharField(
        label=gettext_lazy("Points by final place"),
        initial=", ".join(map(str, DEFAULT_POINTS)),
        help_text=gettext_lazy("From the 1st place on; past the last, no points."),
    )
    taking_part = forms.IntegerField(
        label=gettext_lazy("Points for taking part"),
        min_value=0,
        max_value=1000,
        initial=DEFAULT_TAKING_PART,
    )

    def clean_points(self):
        return points_from_text(self.cleaned_data["points"])


def _season_form_initial():
    today = timezone.localdate()
    return {"start": today, "end": today + datetime.timedelta(days=364)}


@login_required
@require_http_methods(["GET", "POST"])
@posted.only(form=SeasonForm, refuse=bad_form)
def new_season(request, pk):
    """Organisers create a season: its days and its points table."""
    club = readable(request, pk)
    if not club.is_organiser(request.user):
        # The model's own sentence, as the API says it.
        refusal = NotAllowed(
            _("Only the club's organisers can %(what)s."), what=_("create seasons")
        )
        return problem(request, explain(refusal), status=refusal.status)
    form = SeasonForm(posted_data(request), initial=_season_form_initial())
    if request.method == "POST" and form.is_valid():
        try:
            season = club.add_season(request.user, **form.cleaned_data)
        except values.Refusal as refusal:
            form.add_error(None, explain(refusal))
        else:
            return redirect("club_season", pk=club.pk, season_id=season.pk)
    return form_page(request, "clubs/new_season.html", form, club=club)


@login_required
@require_GET
def season(request, pk, season_id):
    """The season's table as ``board.season_table`` ranks it, the tournaments that count
    and the points table."""
    club = readable(request, pk)
    table = boards.season_table(club, _season(club, season_id))
    return render(
        request,
        "clubs/season.html",
        {"club": club, "table": table, "organiser": club.is_organiser(request.user)},
    )


# Exports --------------------------------------------------------------------------------


def _download(body, format, name):
    """A file named squarescores-2026-12-06-club-3-ratings.csv: the day it was taken
    (a leaderboard is as of today), ASCII only."""
    if format == "csv":
        content_type = "text/csv; charset=utf-8"
    else:
        body = json.dumps(body, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2)
        content_type = "application/json"
    response = HttpResponse(body, content_type=content_type)
    day = timezone.localdate().isoformat()
    response["Content-Disposition"] = content_disposition_header(
        True, f"squarescores-{day}-{name}.{format}"
    )
    return response


@login_required
@require_GET
def ratings_export(request, pk, format):
    club = readable(request, pk)
    lines = boards.leaderboard(club)
    body = export.ratings_csv(lines) if format == "csv" else export.ratings_json(club, lines)
    return _download(body, format, f"club-{club.pk}-ratings")


@login_required
@require_GET
def season_export(request, pk, season_id, format):
    club = readable(request, pk)
    table = boards.season_table(club, _season(club, season_id))
    body = export.season_csv(table) if format == "csv" else export.season_json(table)
    return _download(body, format, f"club-{club.pk}-season-{table.season.pk}")


@login_required
@require_GET
def player_export(request, pk, player_id, format):
    club = readable(request, pk)
    record = boards.record(club, _player(club, player_id))
    body = export.record_csv(record) if format == "csv" else export.record_json(record)
    return _download(body, format, f"club-{club.pk}-player-{record.player.pk}")
