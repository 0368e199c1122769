"""A club rubber from the roster: four of its players picked for the seats, the
forecast for those four, and the rubber started as any other (its sheet)."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from matches import posted, rosters, values
from matches.models import Match, explain
from matches.views.answers import bad_form
from matches.views.answers import posted as posted_data

from .. import ratings
from ..forms import SEATS, RubberForm, chosen
from .roster import readable


def forecast_of(club, roster, chosen) -> dict[str, int] | None:
    """Each side's chance for the four players ``chosen`` by seat, in whole percents."""
    if chosen is None:
        return None
    players = {player.pk: player for player in roster}
    if not all(pk in players for pk in chosen.values()):
        return None
    a, b = ([players[chosen[seat]].skill for seat in side] for side in (SEATS[:2], SEATS[2:]))
    percent = round(100 * ratings.chance(a, b, club.calibration))
    return {"a": percent, "b": 100 - percent}


@login_required
@require_http_methods(["GET", "POST"])
@posted.only(*SEATS, "host_seat", "first_dealer", refuse=bad_form)
def club_rubber(request, pk):
    """Organisers and the club's players start a rubber of four of its players; a GET
    with the four chosen (htmx, as they are picked) answers their forecast."""
    club = readable(request, pk)
    roster = list(club.players.defer("points").order_by("name", "id"))
    mine = next((player for player in roster if player.user_id == request.user.pk), None)
    initial = {"a1": mine.pk, "host_seat": "a1"} if mine else {"host_seat": ""}
    form = RubberForm(posted_data(request), roster=roster, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            names, ids = rosters.keeper().seat(request.user, club.pk, form.players())
            match = Match.objects.start(
                request.user,
                names,
                players=ids,
                host_seat=form.cleaned_data["host_seat"] or None,
                first_dealer=form.cleaned_data["first_dealer"],
            )
        except values.Refusal as refusal:
            form.add_error(None, explain(refusal))
            status = refusal.status
        else:
            return redirect("match", pk=match.pk)
    else:
        status = 400 if form.errors else 200
    picked = chosen(request.POST if request.method == "POST" else request.GET)
    context = {"club": club, "form": form, "forecast": forecast_of(club, roster, picked)}
    if request.htmx and request.method == "GET":
        return render(request, "clubs/rubber.html#forecast", context)
    return render(request, "clubs/rubber.html", context, status=status)
