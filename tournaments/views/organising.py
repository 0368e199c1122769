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

from matches import conditional, links, posted, rosters, values
from matches.models import explain
from matches.views.answers import bad_form, form_page, go
from matches.views.answers import posted as posted_data

from .. import board as boards
from ..forms import NewTournamentForm, PairsForm, lines_from_pairs
from ..models import Series, Tournament


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
    form = NewTournamentForm(posted_data(request), initial={"club": request.GET.get("club")})
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
                club=data["club"],
            )
        except values.Refusal as refusal:
            form.add_error(None, explain(refusal))
        else:
            return redirect("tournament", pk=tournament.pk)
    return form_page(request, "tournaments/new.html", form, roster=_roster(request, form))


def _roster(request, form) -> list[str]:
    """A club's tournament: the names on its roster, offered for the pairs."""
    club = form["club"].value()
    keeper = rosters.keeper()
    if not club or keeper is None:
        return []
    return keeper.names(request.user, club)


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
@require_http_methods(["GET", "POST"])
@posted.only("winner", "confirm", refuse=bad_form)
def walkover(request, pk, series_id):
    """A walkover asks first: its page says what will be recorded (a GET, or a POST
    not yet confirmed), and only the confirmed POST records it."""
    tournament = organised(request, pk)
    data = request.POST if request.method == "POST" else request.GET
    winner = _pair_id(data.get("winner"))
    if _confirmed(request):
        return _act(
            request,
            pk,
            lambda tournament: tournament.walkover(request.user, series_id, winner),
            _("The walkover is recorded."),
        )
    series = (
        Series.objects.filter(pk=series_id, round__tournament=tournament)
        .select_related("a", "b")
        .first()
    )
    if series is None:
        raise Http404
    if winner not in (series.a_id, series.b_id):
        return bad_form(request, _("The winner must be one of the series' two pairs."))
    absent = series.b if winner == series.a_id else series.a
    present = series.a if winner == series.a_id else series.b
    return _confirm(
        request,
        tournament,
        title=_("Record a walkover?"),
        question=_(
            "%(absent)s did not turn up: %(present)s win the series %(mocas)s–0, its games "
            "0–0. Until the table moves on, it can be taken back."
        )
        % {"absent": absent.name, "present": present.name, "mocas": tournament.mocas_to_win},
        action=reverse("walkover", args=[tournament.pk, series.pk]),
        fields={"winner": winner},
        confirm=_("Record the walkover: %(pair)s win") % {"pair": present.name},
    )


@login_required
@require_POST
@posted.only(refuse=bad_form)
def undo_walkover(request, pk, series_id):
    return _act(
        request,
        pk,
        lambda tournament: tournament.undo_walkover(request.user, series_id),
        _("The walkover is taken back: the series is to be played."),
    )


@login_required
@require_POST
@posted.only("pairs", refuse=bad_form)
def negra(request, pk):
    chosen = [_pair_id(value) for value in request.POST.getlist("pairs")]
    return _act(request, pk, lambda tournament: tournament.play_negra(request.user, chosen))


@login_required
@require_http_methods(["GET", "POST"])
@posted.only("confirm", refuse=bad_form)
def end(request, pk):
    """Ending the tournament asks first, as a walkover does."""
    tournament = organised(request, pk)
    if _confirmed(request):
        return _act(
            request,
            pk,
            lambda tournament: tournament.end(request.user),
            _("The tournament is over."),
        )
    return _confirm(
        request,
        tournament,
        title=_("End the tournament?"),
        question=_(
            "No round is drawn after this, and it can't be taken back. Rubbers in play can "
            "still be finished."
        ),
        action=reverse("end_tournament", args=[tournament.pk]),
        fields={},
        confirm=_("End the tournament"),
    )


def _confirmed(request) -> bool:
    return request.method == "POST" and request.POST.get("confirm") == "yes"


def _confirm(request, tournament, *, title, question, action, fields, confirm):
    """The page that asks before a change that is hard to take back: a plain form
    that posts the change again, confirmed, and a way back."""
    context = {
        "tournament": tournament,
        "title": title,
        "question": question,
        "action": action,
        "fields": fields,
        "confirm": confirm,
    }
    return render(request, "tournaments/confirm.html", context)


def _pair_id(value):
    value = str(value or "")
    return int(value) if value.isascii() and value.isdigit() and len(value) < 19 else None
