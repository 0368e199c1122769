"""The organiser's pages: their tournaments, opening one, and the one page that runs
it (every table at a glance, the rounds, walkovers, negras, the end), which follows
the room live.

Each action is a plain POST that redirects back to the page (htmx follows it), its
refusal said in the page's messages; the rules are the tournament's own methods.
"""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from matches import conditional, links, posted, values
from matches.models import explain
from matches.views.answers import bad_form, form_page, go
from matches.views.answers import posted as posted_data

from .. import board as boards
from ..forms import NewTournamentForm, PairsForm, lines_from_pairs
from ..models import Tournament


def organised(request, pk) -> Tournament:
    """Tournament ``pk``, for its organiser; a 404 for anyone else."""
    tournament = Tournament.objects.organised_by(request.user).filter(pk=pk).first()
    if tournament is None:
        raise Http404
    return tournament


@login_required
@require_GET
def tournaments(request):
    mine = Tournament.objects.organised_by(request.user).prefetch_related("pairs")
    return render(request, "tournaments/list.html", {"tournaments": mine})


@login_required
@require_http_methods(["GET", "POST"])
@posted.only(form=NewTournamentForm, refuse=bad_form)
def new_tournament(request):
    form = NewTournamentForm(posted_data(request))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            tournament = Tournament.objects.open(
                request.user,
                name=data["name"],
                pairs=data["pairs"],
                format=data["format"],
                rounds=data["rounds"],
                knockout_size=data["knockout_size"],
                tables=data["tables"],
                mocas_to_win=data["mocas_to_win"],
                bandeira_at_120=data["bandeira_at_120"],
            )
        except values.Refusal as refusal:
            form.add_error(None, explain(refusal))
        else:
            return redirect("tournament", pk=tournament.pk)
    return form_page(request, "tournaments/new.html", form)


def page_context(request, tournament):
    board = boards.read(tournament)
    return {
        "tournament": tournament,
        "board": board,
        "organising": True,
        "etag": conditional.etag(board.version, conditional.HOST),
        "poll_ms": settings.SHEET_POLL_MS,
        "heartbeat_ms": settings.LIVE_HEARTBEAT_MS,
        "poll_url": reverse("tournament_board", args=[tournament.pk]),
        "events_url": reverse("api-tournament-events", args=[tournament.pk]),
        "watch_url": links.absolute(
            request, reverse("tournament_watch", args=[tournament.watch_token])
        ),
    }


@login_required
@require_GET
def tournament(request, pk):
    tournament = organised(request, pk)
    context = page_context(request, tournament)
    if context["board"].status == Tournament.REGISTERING:
        context["pairs_form"] = PairsForm(
            initial={"pairs": lines_from_pairs(context["board"].pairs)}
        )
    return render(request, "tournaments/tournament.html", context)


@login_required
@require_GET
def board(request, pk):
    """The organiser's board alone, as the page's poll brings it in (304 unchanged)."""
    tournament = organised(request, pk)
    return board_fragment(request, tournament, "tournaments/tournament.html#board", page_context)


def board_fragment(request, tournament, template, context_of, viewer=conditional.HOST):
    """A screen's board as its poll asks for it: 304 while the tournament's version is
    the one the screen shows (two queries), else ``template`` with ``context_of``'s."""
    tag = conditional.etag(boards.version(tournament.pk), viewer)
    unchanged = conditional.not_modified(request, tag)
    if unchanged is not None:
        return unchanged
    response = render(request, template, context_of(request, tournament))
    return conditional.validators(response, tag)


def _act(request, pk, change, done=None):
    """Run ``change(tournament)``; say a refusal in the page's messages. Back to the page."""
    tournament = organised(request, pk)
    try:
        change(tournament)
    except values.Refusal as refusal:
        messages.error(request, explain(refusal))
    else:
        if done:
            messages.success(request, done)
    return go(request, reverse("tournament", args=[tournament.pk]))


@login_required
@require_POST
@posted.only(form=PairsForm, refuse=bad_form)
def pairs(request, pk):
    tournament = organised(request, pk)
    form = PairsForm(request.POST)
    if not form.is_valid():
        context = page_context(request, tournament)
        context["pairs_form"] = form
        return render(request, "tournaments/tournament.html", context, status=400)
    return _act(
        request,
        pk,
        lambda tournament: tournament.set_pairs(request.user, form.cleaned_data["pairs"]),
        _("The pairs are saved."),
    )


@login_required
@require_POST
@posted.only(refuse=bad_form)
def start_round(request, pk):
    return _act(request, pk, lambda tournament: tournament.start_round(request.user))


@login_required
@require_POST
@posted.only("winner", refuse=bad_form)
def walkover(request, pk, series_id):
    winner = _pair_id(request.POST.get("winner"))
    return _act(
        request,
        pk,
        lambda tournament: tournament.walkover(request.user, series_id, winner),
        _("The walkover is recorded."),
    )


@login_required
@require_POST
@posted.only("pairs", refuse=bad_form)
def negra(request, pk):
    chosen = [_pair_id(value) for value in request.POST.getlist("pairs")]
    return _act(request, pk, lambda tournament: tournament.play_negra(request.user, chosen))


@login_required
@require_POST
@posted.only(refuse=bad_form)
def end(request, pk):
    return _act(
        request, pk, lambda tournament: tournament.end(request.user), _("The tournament is over.")
    )


def _pair_id(value):
    value = str(value or "")
    return int(value) if value.isascii() and value.isdigit() and len(value) < 19 else None
