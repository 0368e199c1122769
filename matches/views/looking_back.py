"""Looking back: a night and its tally, a person's history and standings, one
rubber's whole sheet and its changes, the next rubber's pairs, and the exports.

Every list reads in a fixed number of queries however many rubbers there are:
lists are paginated, and tallies and standings come from the results stored
on each match.
"""

import json

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Prefetch
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from .. import export, rules, values
from .. import standings as tables
from ..forms import HistoryFilterForm, NightForm, RematchForm
from ..models import Match, Night, User, explain, no_rematch_in_a_tournament
from ..sheet import names_of, read
from .answers import form_page

RUBBERS_PER_PAGE = 20
NIGHT_RUBBERS_PER_PAGE = 50
STANDINGS_PER_PAGE = 25

OUTCOMES = {
    "won": gettext_lazy("won"),
    "lost": gettext_lazy("lost"),
    "ended": gettext_lazy("ended early"),
    "in_play": gettext_lazy("in play"),
    "kept": gettext_lazy("kept the sheet"),
}
MARKS = {
    "bandeira": gettext_lazy("bandeira"),
    "shutout": gettext_lazy("shutout"),
    "chapeu": gettext_lazy("chapéu"),
}


# Reading -------------------------------------------------------------------------


def _night_for(request, pk):
    """The night with its rubbers and their seats, for its host and players; else 404."""
    rubbers = Match.objects.select_related("ended_by").prefetch_related("seats")
    night = (
        Night.objects.visible_to(request.user)
        .filter(pk=pk)
        .prefetch_related(Prefetch("matches", queryset=rubbers))
        .first()
    )
    if night is None:
        raise Http404
    return night


def _played_rubber(request, pk, rubbers=None):
    """One of the person's own rubbers (hosted or played); else 404."""
    rubbers = rubbers if rubbers is not None else Match.objects.all()
    match = rubbers.played_by(request.user).filter(pk=pk).first()
    if match is None:
        raise Http404
    return match


def _swap(request):
    """htmx swaps the list in place; restoring the history (the back button) takes
    the whole page."""
    return request.htmx and not request.htmx.history_restore_request


def _filters(request, played):
    """The history's filter form, offering the person's nights and the people they played with."""
    nights = Night.objects.filter(pk__in=played.values("night_id")).order_by("-created")
    people = (
        User.objects.filter(seats__match__in=played.values("pk"))
        .exclude(pk=request.user.pk)
        .distinct()
        .order_by("display_name", "username")
    )
    return HistoryFilterForm(request.GET, nights=nights, people=people)


def _query(request, *drop):
    """The query string without the paging, for links that keep the filters."""
    query = request.GET.copy()
    for name in drop:
        query.pop(name, None)
    return query.urlencode()


def _pages(request, page, param="page"):
    """Links to the page before and after this one, keeping every other parameter."""

    def link(number):
        query = request.GET.copy()
        query[param] = number
        return f"{request.path}?{query.urlencode()}"

    return {
        "number": page.number,
        "total": page.paginator.num_pages,
        "previous": link(page.previous_page_number()) if page.has_previous() else None,
        "next": link(page.next_page_number()) if page.has_next() else None,
    }


def outcome(match):
    """How a rubber of ``played_by`` went for the person."""
    if match.status in (Match.IN_PLAY, Match.ENDED):
        return match.status
    if match.side is None:
        return "kept"
    return "won" if match.winner == match.side else "lost"


def _line(match, side=None):
    """A rubber in a list: the person's side first, the score, its marks."""
    names = match.side_names()
    games = {"a": match.games_a, "b": match.games_b}
    order = (side, rules.other(side)) if side else values.SIDES
    return {
        "match": match,
        "sides": [{"names": names[s], "games": games[s], "won": match.winner == s} for s in order],
        "marks": [MARKS[mark] for mark in match.marks],
        # Ended because the other pair did not turn up: said as such, not as ended early.
        "walkover": _("Walkover: won by %(pair)s") % {"pair": names[match.walkover]}
        if match.walkover
        else "",
    }


# Pages -----------------------------------------------------------------------------


@login_required
@require_GET
def history(request):
    played = Match.objects.played_by(request.user)
    form = _filters(request, played)
    rubbers = form.apply(played).select_related("night").prefetch_related("seats")
    page = Paginator(rubbers, RUBBERS_PER_PAGE).get_page(request.GET.get("page"))
    lines = []
    for match in page:
        line = _line(match, match.side)
        line["outcome"] = outcome(match)
        line["outcome_label"] = line["walkover"] or OUTCOMES[line["outcome"]]
        lines.append(line)
    context = {
        "form": form,
        "page": page,
        "pages": _pages(request, page),
        "lines": lines,
        "query": _query(request, "page"),
    }
    template = "matches/history.html#rubbers" if _swap(request) else "matches/history.html"
    return render(request, template, context)


@login_required
@require_http_methods(["GET", "POST"])
def night(request, pk):
    night = _night_for(request, pk)
    hosting = night.host_id == request.user.pk
    form = NightForm(
        request.POST if request.method == "POST" else None,
        initial={"name": night.name, "place": night.place},
    )
    if request.method == "POST":
        if not hosting:
            return render(
                request,
                "problem.html",
                {"message": _("Only the night's host can rename it.")},
                status=403,
            )
        if form.is_valid():
            try:
                night.describe(request.user, **form.cleaned_data)
            except values.Refusal as refusal:
                form.add_error(None, explain(refusal))
            else:
                return redirect("night", pk=night.pk)
    rubbers = night.rubbers()
    numbered = [(number, match) for number, match in enumerate(rubbers, start=1)]
    page = Paginator(numbered, NIGHT_RUBBERS_PER_PAGE).get_page(request.GET.get("page"))
    lines = []
    for number, match in page:
        line = _line(match)
        line["number"] = number
        lines.append(line)
    last = rubbers[-1] if rubbers else None
    context = {
        "night": night,
        "hosting": hosting,
        "form": form,
        "page": page,
        "pages": _pages(request, page),
        "lines": lines,
        "rubbers": len(rubbers),
        "tally": tables.tally(night.rubbers()),
        "named": night.named,
        "next_from": last
        if hosting and last and not last.in_play and not night.tournament_table
        else None,
    }
    return render(request, "matches/night.html", context)


@login_required
@require_GET
def rubber(request, pk):
    """A rubber of the person's: the whole sheet read-only, its notes and every change."""
    match = _played_rubber(request, pk, Match.objects.for_sheet().select_related("night"))
    sheet = read(match, watching=True)  # read-only, both sides by their names
    names = names_of(match)
    events = list(match.events.select_related("by").order_by("id"))
    seated = {seat.position: seat.name for seat in match.seat_list()}
    line = _line(match, match.side)
    context = {
        "match": match,
        "sheet": sheet,
        "line": line,
        "outcome_label": line["walkover"] or OUTCOMES[outcome(match)],
        "names": match.side_names(),
        "changes": [_change(event, sheet.labels, seated, names) for event in events],
        "next_from": match
        if match.is_host(request.user)
        and not match.in_play
        and sheet.next is None
        and not sheet.in_tournament
        else None,
    }
    return render(request, "matches/rubber.html", context)


def _cells(state):
    if state and state.get("redeal"):
        return _("redealt")
    if not state or "a" not in state:
        return ""

    def cell(value):
        return "…" if value is None else str(value)

    bandeira = f" ({_('bandeira')})" if state.get("sweep") else ""
    return f"{cell(state['a'])}–{cell(state['b'])}{bandeira}"


def _change(event, names, seated, people):
    """One line of the change history: when, who, what, and the values before and after."""
    before, after = event.before or {}, event.after or {}
    detail = ""
    if event.action in ("entry", "undo", "correction"):
        detail = f"{_cells(before)} → {_cells(after)}"
    elif event.action in ("note", "note_withdrawn"):
        note = after or before
        detail = f"{names.get(note.get('side'), '')}: {note.get('text', '')}"
    elif event.action == "join" or event.action.startswith("seat_"):
        detail = _seat_change(event, seated, people)
    elif event.action == "end":
        games = after.get("games", {})
        detail = f"{games.get('a', 0)}–{games.get('b', 0)}"
    elif event.action == "rematch" and after.get("match"):
        detail = _("rubber %(number)s") % {"number": after["match"]}
    return {
        "at": event.at,
        "by": people.get(event.by_id) or (event.by.name if event.by else _("someone")),
        "what": event.get_action_display(),
        "deal": event.deal,
        "detail": detail,
    }


def _seat_change(event, seated, people):
    """A change of seat in words, by the seat's name as the table typed it (people
    never see the codes a1…b2): "Zé's seat, to Olga"."""
    before, after = event.before or {}, event.after or {}
    position = after.get("seat") or before.get("seat", "")
    name = after.get("name") or before.get("name") or seated.get(position, "")
    taker = people.get(event.by_id) or (event.by.name if event.by else "")
    if event.action == "join" and name == taker and not after.get("by_link"):
        return ""  # "Rui took a seat" says it all
    words = _("%(name)s's seat") % {"name": name}
    if event.action == "join" and after.get("by_link"):
        return _("%(seat)s, by the host’s link for it") % {"seat": words}
    if event.action == "seat_given":
        return _("%(seat)s, to %(asker)s") % {"seat": words, "asker": after.get("asker", "")}
    if event.action == "seat_refused":
        return _("%(seat)s, asked for by %(asker)s") % {
            "seat": words,
            "asker": after.get("asker", ""),
        }
    return words


@login_required
@require_GET
def standings(request):
    played = Match.objects.played_by(request.user)
    form = _filters(request, played)
    table = tables.standings(form.apply(played))
    players = Paginator(table.players, STANDINGS_PER_PAGE).get_page(request.GET.get("page"))
    meetings = Paginator(table.head_to_head, STANDINGS_PER_PAGE).get_page(request.GET.get("pairs"))
    context = {
        "form": form,
        "players": players,
        "player_pages": _pages(request, players),
        "chart": _chart(players),
        "meetings": meetings,
        "meeting_pages": _pages(request, meetings, "pairs"),
        "query": _query(request, "page", "pairs"),
    }
    template = "matches/standings.html#tables" if _swap(request) else "matches/standings.html"
    return render(request, template, context)


BAR_TOP, BAR_HEIGHT, BAR_GAP, BAR_LEFT, BAR_WIDTH = 6, 20, 8, 96, 150


def _chart(players):
    """Win-rate bars for the players on this page, laid out for a server-drawn SVG."""
    bars = []
    for index, player in enumerate(players):
        y = BAR_TOP + index * (BAR_HEIGHT + BAR_GAP)
        bars.append(
            {
                "player": player,
                "percent": round(player.rate * 100),
                "y": y,
                "text_y": y + BAR_HEIGHT * 0.72,
                "width": round(player.rate * BAR_WIDTH, 1),
            }
        )
    return {
        "bars": bars,
        "height": BAR_TOP * 2 + len(bars) * (BAR_HEIGHT + BAR_GAP),
        "left": BAR_LEFT,
        "full": BAR_WIDTH,
        "bar_height": BAR_HEIGHT,
        "label_x": BAR_LEFT + BAR_WIDTH + 6,
        "name_x": BAR_LEFT - 6,
        "width": BAR_LEFT + BAR_WIDTH + 44,
    }


@login_required
@require_http_methods(["GET", "POST"])
def next_rubber(request, pk):
    """The host picks the pairs of the next rubber: the same, swapped, or seat by seat."""
    match = (
        Match.objects.visible_to(request.user)
        .select_related("night")
        .prefetch_related("seats")
        .filter(pk=pk)
        .first()
    )
    if match is None:
        raise Http404
    if not match.is_host(request.user):
        message = _("Only the host can start a rematch.")
        return render(request, "problem.html", {"message": message}, status=403)
    if match.night.tournament_table:
        message = no_rematch_in_a_tournament()
        return render(request, "problem.html", {"message": message}, status=409)
    form = RematchForm(request.POST or None, match=match)
    if request.method == "POST" and form.is_valid():
        try:
            following = match.rematch(request.user, form.seats())
        except values.Refusal as refusal:
            form.add_error(None, explain(refusal))
        else:
            return redirect("match", pk=following.pk)
    return form_page(request, "matches/rematch.html", form, match=match, line=_line(match))


# Exports -----------------------------------------------------------------------------


def _download(content, content_type, filename):
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


def _filename(kind, played, extension):
    """squarescores-2026-12-01-night-3.csv: the day the night or rubber began where
    the reader is, then what it is. Only ASCII goes in, so the header needs no
    encoding and every browser saves it under that name."""
    day = timezone.localdate(played.created).isoformat()
    return f"squarescores-{day}-{kind}-{played.pk}.{extension}"


def _csv(matches, filename):
    return _download(export.csv_file(matches), "text/csv; charset=utf-8", filename)


def _json(data, filename):
    body = json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2)
    return _download(body, "application/json", filename)


@login_required
@require_GET
def match_export(request, pk, format):
    match = _played_rubber(request, pk, export.full(Match.objects.all()))
    filename = _filename("rubber", match, format)
    if format == "csv":
        return _csv([match], filename)
    return _json(export.match_json(match), filename)


@login_required
@require_GET
def night_export(request, pk, format):
    night = export.nights_with_rubbers(Night.objects.visible_to(request.user)).filter(pk=pk).first()
    if night is None:
        raise Http404
    filename = _filename("night", night, format)
    if format == "csv":
        return _csv(export.night_rubbers(night), filename)
    return _json(export.night_json(night), filename)


@login_required
@require_GET
def my_data(request):
    return _json(export.personal_data(request.user), "squarescores-my-data.json")
