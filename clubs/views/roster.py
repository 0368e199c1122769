"""The club and its roster: my clubs and opening one, the club's page (its leaderboard,
season, nights and tournaments, followed live), the roster its organisers keep, and the
link a player's account opens.

Each roster change is a plain POST that goes back to the roster (htmx swaps the roster
in place); a refusal is said beside the control that was used, with the model's words.
"""

from functools import lru_cache, wraps

import segno
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from matches import conditional, links, posted, values
from matches.models import NotAllowed, explain
from matches.views.answers import bad_form, form_page, go, not_found, problem
from matches.views.answers import posted as posted_data

from .. import board
from ..forms import OpenClubForm
from ..models import Club, Player, no_such_player, player_link_gone
from ..season import shown as season_shown

SEASON_LINES = 5  # the season's table on the club's page: its top; the season page has it all


def readable(request, pk) -> Club:
    """Club ``pk`` for its organisers and linked players; a 404 for anyone else."""
    club = Club.objects.readable_by(request.user).filter(pk=pk).first()
    if club is None:
        raise Http404
    return club


def organised(request, pk) -> Club:
    """Club ``pk`` for its organisers; its players may read it but not change it."""
    club = readable(request, pk)
    if not club.is_organiser(request.user):
        raise NotAllowed(_("Only the club's organisers can change the roster."))
    return club


def refusals_said(view):
    """A refusal raised before the work starts (403: a player, not an organiser) as a page."""

    @wraps(view)
    def answered(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except values.Refusal as refusal:
            return problem(request, explain(refusal), status=refusal.status)

    return answered


@lru_cache(maxsize=256)
def qr(url, title):
    # A pure function of the link, and slow to draw: drawn once per link. segno's own
    # SVG, the link and title inside escaped by segno.
    svg = segno.make(url, error="m").svg_inline(scale=4, light="#fff", svgclass="qr", title=title)
    return mark_safe(svg)


# My clubs --------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
@posted.only(form=OpenClubForm, refuse=bad_form)
def clubs(request):
    """The clubs I organise or play in, and opening a new one."""
    form = OpenClubForm(posted_data(request))
    if request.method == "POST" and form.is_valid():
        try:
            club = Club.objects.open(request.user, form.cleaned_data["name"])
        except values.Refusal as refusal:
            form.add_error("name", explain(refusal))
        else:
            return redirect("club", pk=club.pk)
    mine = Club.objects.readable_by(request.user)
    return form_page(request, "clubs/list.html", form, clubs=mine)


# The club's page -------------------------------------------------------------------------


def page_context(request, club):
    seasons = list(club.seasons.all())
    current = season_shown(seasons, timezone.localdate())
    table = board.season_table(club, current) if current else None
    return {
        "club": club,
        "version": club.version,
        "etag": conditional.etag(club.version, conditional.person(request.user.pk)),
        "leaderboard": board.leaderboard(club),
        "seasons": seasons,
        "current": current,
        "season_lines": table.lines[:SEASON_LINES] if table else [],
        "nights": board.recent_nights(club),
        "tournaments": board.club_tournaments(club).order_by("-created")[:10],
    }


@login_required
@require_GET
def club(request, pk):
    club = readable(request, pk)
    context = page_context(request, club)
    organiser = club.is_organiser(request.user)
    context.update(
        organiser=organiser,
        poll_ms=settings.SHEET_POLL_MS,
        heartbeat_ms=settings.LIVE_HEARTBEAT_MS,
        poll_url=reverse("club_live", args=[club.pk]),
        events_url=reverse("api-club-events", args=[club.pk]),
    )
    if organiser:
        watch_url = links.absolute(request, reverse("club_board", args=[club.watch_token]))
        context.update(watch_url=watch_url, watch_qr=qr(watch_url, _("The club's board")))
    return render(request, "clubs/club.html", context)


@login_required
@require_GET
def club_live(request, pk):
    """The club's board alone, as the page's poll brings it in (304 while unchanged)."""
    club = readable(request, pk)
    tag = conditional.etag(club.version, conditional.person(request.user.pk))
    unchanged = conditional.not_modified(request, tag)
    if unchanged is not None:
        return unchanged
    response = render(request, "clubs/club.html#board", page_context(request, club))
    return conditional.validators(response, tag)


# The roster ------------------------------------------------------------------------------


def roster_context(request, club, *, errors=None, shown=None):
    reading = board.read(club)
    organisers = {user.pk for user in reading.organiser_list}
    shown_player = next((p for p in reading.player_list if p.pk == shown and p.link_token), None)
    errors = errors or {}
    context = {
        "club": club,
        "reading": reading,
        "errors": errors,
        # Each line with the refusal of its own controls, if one was just used.
        "players": [
            {
                "player": player,
                "rename_error": errors.get(f"rename-{player.pk}"),
                "link_error": errors.get(f"link-{player.pk}"),
            }
            for player in reading.player_list
        ],
        "organisers": [
            {"user": user, "error": errors.get(f"organiser-{user.pk}")}
            for user in reading.organiser_list
        ],
        "may_join": [
            player
            for player in reading.player_list
            if player.user_id and player.user_id not in organisers
        ],
        "shown": shown_player,
    }
    if shown_player is not None:
        url = links.absolute(request, reverse("club_player_link", args=[shown_player.link_token]))
        context["shown_url"] = url
        context["shown_qr"] = qr(url, _("%(name)s's link") % {"name": shown_player.name})
    return context


@login_required
@require_GET
@refusals_said
def roster(request, pk):
    club = organised(request, pk)
    shown = request.GET.get("link", "")
    context = roster_context(request, club, shown=int(shown) if shown.isdigit() else None)
    return render(request, "clubs/roster.html", context)


def _act(request, club, control, change, done, *, back=None, show_link=False):
    """Run ``change()``; a refusal is said beside ``control`` and changes nothing.
    Done: back to the roster (htmx: the roster in place), saying ``done`` (or what
    ``done(result)`` says), and, with ``show_link``, the link of the player it returned."""
    try:
        result = change()
    except values.Refusal as refusal:
        context = roster_context(request, club, errors={control: explain(refusal)})
        template = "clubs/roster.html#roster" if request.htmx else "clubs/roster.html"
        return render(request, template, context, status=refusal.status)
    said = done(result) if callable(done) else done
    if request.htmx and back is None:
        context = roster_context(request, club, shown=result.pk if show_link else None)
        context["done"] = said
        return render(request, "clubs/roster.html#roster", context)
    messages.success(request, said)
    return go(request, back or reverse("club_roster", args=[club.pk]))


@login_required
@require_POST
@posted.only("name", refuse=bad_form)
@refusals_said
def add_player(request, pk):
    club = organised(request, pk)
    return _act(
        request,
        club,
        "add",
        lambda: club.add_player(request.user, request.POST.get("name", "")),
        lambda player: _("%(name)s is on the roster.") % {"name": player.name},
    )


@login_required
@require_POST
@posted.only("name", refuse=bad_form)
@refusals_said
def rename_player(request, pk, player_id):
    club = organised(request, pk)
    return _act(
        request,
        club,
        f"rename-{player_id}",
        lambda: club.rename_player(request.user, player_id, request.POST.get("name", "")),
        lambda player: _("The player is %(name)s now.") % {"name": player.name},
    )


@login_required
@require_POST
@posted.only(refuse=bad_form)
@refusals_said
def hand_link(request, pk, player_id):
    """A fresh link for the player's account, shown with its QR code to scan."""
    club = organised(request, pk)
    back = None
    if not request.htmx:  # the page again, showing the link
        back = f"{reverse('club_roster', args=[club.pk])}?link={player_id}#link"
    return _act(
        request,
        club,
        f"link-{player_id}",
        lambda: club.hand_link(request.user, player_id),
        _("The link is ready: show it to them, or send it."),
        back=back,
        show_link=True,
    )


@login_required
@require_http_methods(["GET", "POST"])
@posted.only("player", "into", "confirm", refuse=bad_form)
@refusals_said
def merge_players(request, pk):
    """Two entries of one person: a confirm step ("X and Y are one person"), then the
    merge. Nothing changes until it is confirmed."""
    club = organised(request, pk)
    data = request.POST if request.method == "POST" else request.GET
    player_id, into_id = data.get("player", ""), data.get("into", "")
    if request.method == "POST" and data.get("confirm") == "yes":
        return _act(
            request,
            club,
            "merge",
            lambda: club.merge_players(request.user, player_id, into_id),
            _("The two entries are one player now."),
            back=reverse("club_roster", args=[club.pk]),
        )
    found = {
        str(player.pk): player
        for player in club.players.filter(
            pk__in=[value for value in (player_id, into_id) if value.isdigit() and len(value) < 19]
        )
    }
    player, into = found.get(player_id), found.get(into_id)
    message = None
    if player is None or into is None:
        message = no_such_player()
    elif player.pk == into.pk:
        message = _("Name two different players to merge.")
    if message:
        context = roster_context(request, club, errors={"merge": message})
        return render(request, "clubs/roster.html", context, status=400)
    return render(request, "clubs/merge.html", {"club": club, "player": player, "into": into})


@login_required
@require_POST
@posted.only("player", refuse=bad_form)
@refusals_said
def add_organiser(request, pk):
    club = organised(request, pk)
    return _act(
        request,
        club,
        "organiser",
        lambda: club.add_organiser(request.user, request.POST.get("player", "")),
        _("They organise the club too now."),
    )


@login_required
@require_POST
@posted.only(refuse=bad_form)
@refusals_said
def remove_organiser(request, pk, user_id):
    club = organised(request, pk)
    return _act(
        request,
        club,
        f"organiser-{user_id}",
        lambda: club.remove_organiser(request.user, user_id),
        _("They no longer organise the club."),
    )


# A player's link -------------------------------------------------------------------------


def player_link(request, token):
    """A player's link: signed in, the account becomes the roster's player (a tap to
    confirm); signed out, log in first."""
    player = (
        Player.objects.filter(link_token=token)
        .exclude(link_token="")
        .select_related("club")
        .first()
    )
    if player is None:
        return not_found(request, player_link_gone())
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if request.method == "POST":
        try:
            Club.link_account(request.user, token)
        except values.Refusal as refusal:
            return render(
                request,
                "clubs/link.html",
                {"player": player, "error": explain(refusal)},
                status=refusal.status,
            )
        messages.success(request, _("Your account is %(name)s's now.") % {"name": player.name})
        return redirect("club", pk=player.club_id)
    return render(request, "clubs/link.html", {"player": player})
