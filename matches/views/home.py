"""The home page, and opening a match."""

import json

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from .. import posted, values
from ..forms import SEAT_LABELS, GuestForm, NewMatchForm
from ..models import Match, explain
from .answers import bad_form, form_page
from .answers import posted as posted_data


def home(request):
    lines = []
    if request.user.is_authenticated:
        matches = Match.objects.visible_to(request.user).prefetch_related("seats")[:10]
        lines = [_home_line(match, request.user) for match in matches]
    return render(request, "matches/home.html", {"lines": lines, "guest_form": GuestForm()})


def _home_line(match, user):
    """A rubber in the home list, told from the viewer's side: won or lost for a player,
    which pair won for a host without a seat."""
    names = match.side_names()
    seat = match.seat_of(user)
    if match.status == Match.WON and seat is not None:
        outcome = _("won") if match.winner == seat.side else _("lost")
    elif match.status == Match.WON:
        outcome = _("%(names)s won") % {"names": names[match.winner]}
    elif match.status == Match.ENDED:
        outcome = _("ended early")
    else:
        outcome = _("in play")
    return {"match": match, "names": names, "outcome": outcome}


@login_required
@require_http_methods(["GET", "POST"])
@posted.only(form=NewMatchForm, refuse=bad_form)
def new_match(request):
    form = NewMatchForm(posted_data(request), initial=NewMatchForm.initial_for(request.user))
    if request.method == "POST" and form.is_valid():
        try:
            match = Match.objects.start(
                request.user,
                form.seats(),
                host_seat=form.cleaned_data["host_seat"] or None,
                direction=form.cleaned_data["direction"],
                first_dealer=form.cleaned_data["first_dealer"],
                redeal_rule=form.cleaned_data["redeal"] or values.NEXT_DEALER,
                bandeira_at_120=form.cleaned_data["bandeira_at_120"],
                night_name=form.cleaned_data["night_name"],
                place=form.cleaned_data["place"],
            )
        except values.Refusal as refusal:
            form.add_error(None, explain(refusal))
        else:
            return redirect("match", pk=match.pk)
    labels = json.dumps({position: str(label) for position, label in SEAT_LABELS.items()})
    return form_page(request, "matches/new.html", form, seat_labels=labels)
