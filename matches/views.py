"""The pages players touch at the table.

Each view reads the request, calls one model method and answers: the sheet
fragment for htmx, a redirect after a plain POST. The models check every rule
and permission; a refusal becomes a message in the page and changes nothing.
Anyone who may not see a match gets a 404, so a stranger never learns that it
exists.

Looking back (a night and its tally, a person's history and standings, the
exports, the host's choice of pairs for the next rubber) follows the same
rule, and every list reads in a fixed number of queries however many rubbers
there are: lists are paginated, and tallies and standings come from the
results stored on each match.
"""

import io
import json
from functools import lru_cache
from urllib.parse import urlencode

import segno
from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.core import signing
from django.core.paginator import Paginator
from django.core.serializers.json import DjangoJSONEncoder
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import Prefetch, prefetch_related_objects
from django.http import Http404, HttpResponse, HttpResponseNotModified, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.http import parse_etags, url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.utils.text import capfirst
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

from . import export, limits, posted, rules
from .forms import (
    GuestForm,
    HistoryFilterForm,
    JoinForm,
    KeepForm,
    NewMatchForm,
    NightForm,
    RematchForm,
    SignUpForm,
)
from .models import Deal, Event, Match, Night, RevokeNote, Seat, User, explain

# Where the four arm ends of a cross sit in the SVG, in the order games fill them.
ARMS = ((60, 25), (105, 70), (60, 115), (15, 70))
CHECKED = ("on", "true", "1", "yes")
POLL_SALT = "matches.sheet-poll"
POLL_TOKEN_AGE = 24 * 60 * 60  # a page open longer than a day polls the whole way
UNCHECKED = ("", "off", "false", "0", "no")
# The sheet's links that take only the match's id.
MATCH_URLS = ("entry", "undo", "end", "renew", "rematch", "next_rubber")


# Getting in -------------------------------------------------------------------


def home(request):
    matches = []
    if request.user.is_authenticated:
        matches = Match.objects.visible_to(request.user).prefetch_related("seats")[:10]
    return render(request, "matches/home.html", {"matches": matches, "guest_form": GuestForm()})


def _next_url(request, default="home"):
    """The page to go back to (a join link, say), if it is one of ours."""
    url = request.POST.get("next") or request.GET.get("next")
    if url and url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return url
    return reverse(default)


def _form_page(request, template, form, **context):
    """A form's page; 400 when what was posted was refused, so a client can tell."""
    return render(request, template, {"form": form, **context}, status=400 if form.errors else 200)


def too_many(request, message):
    return _problem(request, message, status=429)


def bad_form(request, message):
    return _problem(request, message, status=400)


class LoginView(auth_views.LoginView):
    """Django's log-in page; a refused log-in answers 400, as every refused form does."""

    def form_invalid(self, form):
        response = super().form_invalid(form)
        response.status_code = 400
        return response


login_page = limits.limit_posts(limits.LoginThrottle, too_many)(
    posted.only(form=AuthenticationForm, refuse=bad_form)(LoginView.as_view())
)


@require_http_methods(["GET", "POST"])
@limits.limit_posts(limits.GuestThrottle, too_many)
@posted.only(form=GuestForm, refuse=bad_form)
def guest(request):
    form = GuestForm(_posted(request))
    if request.method == "POST" and form.is_valid():
        login(request, User.create_guest(form.cleaned_data["name"]))
        return redirect(_next_url(request))
    return _form_page(request, "registration/guest.html", form, next=_next_url(request))


@require_http_methods(["GET", "POST"])
@limits.limit_posts(limits.GuestThrottle, too_many)
@posted.only(form=SignUpForm, refuse=bad_form)
def signup(request):
    if request.user.is_authenticated and request.user.is_guest:
        # A guest keeps their matches by setting a password, not by a new account.
        return redirect(f"{reverse('keep')}?{urlencode({'next': _next_url(request)})}")
    form = SignUpForm(_posted(request))
    if request.method == "POST" and form.is_valid():
        login(request, form.save())
        return redirect(_next_url(request))
    return _form_page(request, "registration/signup.html", form, next=_next_url(request))


@login_required
@require_http_methods(["GET", "POST"])
@posted.only(form=KeepForm, refuse=bad_form)
def keep(request):
    if not request.user.is_guest:
        messages.info(request, _("Your account already has a password."))
        return redirect(_next_url(request))
    form = KeepForm(request.user, _posted(request))
    if request.method == "POST" and form.is_valid():
        user = form.save()
        update_session_auth_hash(request, user)
        messages.success(
            request, _("Done: log in as %(username)s to find your matches.") % {"username": user}
        )
        return redirect(_next_url(request))
    return _form_page(request, "registration/keep.html", form, next=_next_url(request))


# Opening, joining and watching a match ----------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
@posted.only(form=NewMatchForm, refuse=bad_form)
def new_match(request):
    form = NewMatchForm(_posted(request), initial=NewMatchForm.initial_for(request.user))
    if request.method == "POST" and form.is_valid():
        try:
            match = Match.objects.start(
                request.user,
                form.seats(),
                host_seat=form.cleaned_data["host_seat"] or None,
                direction=form.cleaned_data["direction"],
                first_dealer=form.cleaned_data["first_dealer"],
                night_name=form.cleaned_data["night_name"],
                place=form.cleaned_data["place"],
            )
        except rules.Refusal as refusal:
            form.add_error(None, explain(refusal))
        else:
            return redirect("match", pk=match.pk)
    return _form_page(request, "matches/new.html", form)


@require_http_methods(["GET", "POST"])
@limits.limit_posts(limits.GuestThrottle, too_many, anonymous_only=True)
@posted.only(form=JoinForm, refuse=bad_form)
def join(request, token):
    match = Match.objects.filter(join_token=token).prefetch_related(_seats()).first()
    if match is None:
        return _not_found(
            request, _("This join link is not valid any more: ask the host for the new one.")
        )
    if match.seat_of(request.user) is not None:
        messages.info(request, _("You already hold a seat in this match."))
        return _go(request, reverse("match", args=[match.pk]))
    free = [seat for seat in match.seat_list() if seat.user_id is None]
    anonymous = not request.user.is_authenticated
    form = JoinForm(_posted(request), free_seats=free, anonymous=anonymous)
    if request.method == "POST" and form.is_valid():
        name = form.cleaned_data["name"] or None
        try:
            # A newcomer's guest account exists only if the seat is really theirs.
            with transaction.atomic():
                user = User.create_guest(name) if anonymous else request.user
                match.join(user, token=token, position=form.cleaned_data["seat"], name=name)
        except rules.Refusal as refusal:
            return _refused(request, refusal, reverse("join", args=[token]))
        if anonymous:
            login(request, user)
        return _go(request, reverse("match", args=[match.pk]))
    return _form_page(
        request, "matches/join.html", form, match=match, free=free, names=match.side_names()
    )


@require_GET
def watch(request, token):
    match = _with_sheet(Match.objects.filter(watch_token=token)).first()
    if match is None:
        return _not_found(request, _watch_link_gone())
    return render(request, "matches/watch.html", _table(request, match, watching=True))


@require_GET
def watch_sheet(request, token):
    version = Match.objects.filter(watch_token=token).values_list("version", flat=True).first()
    if version is None:
        return _not_found(request, _watch_link_gone())
    return _poll(
        request,
        version,
        lambda: _with_sheet(Match.objects.filter(watch_token=token)).first(),
        watching=True,
    )


def _watch_link_gone():
    return _("This watch link is not valid any more: ask the host for the new one.")


# The sheet ----------------------------------------------------------------------


@require_GET
def match_page(request, pk):
    match = _match_for_viewer(request, pk)
    return render(request, "matches/match.html", _page(request, match))


@require_GET
def sheet(request, pk):
    """The poll: 304 while the match's version is the one the page shows.

    Every phone at every table asks this every two seconds, and nearly always
    nothing has changed. So the page signs its poll URL for its viewer, and an
    unchanged sheet is answered from that signature and one query, without
    reading the session or the user: a 304 tells nothing but "no change".
    Anything else (a change, no or an expired signature) goes the whole way.
    """
    user_id = _poll_viewer(request, pk)
    if user_id is not None and request.headers.get("If-None-Match"):
        version = _version(pk)
        etag = _etag(request, version, False, user_id=user_id)
        if version is not None and etag in parse_etags(request.headers["If-None-Match"]):
            return _not_modified(etag)
        if version is not None:
            # Changed since the page's version: the fragment, whose read of the
            # match decides who may see it; its version need not be read again.
            return _sheet_response(request, _match_for_viewer(request, pk))
    versions = Match.objects.visible_to(request.user).filter(pk=pk).order_by()
    version = versions.values_list("version", flat=True).first()
    if version is None:
        raise Http404
    return _poll(request, version, lambda: _match_for_viewer(request, pk), watching=False)


@require_POST
@posted.only("deal", "side", "games", "sweep", "extra", refuse=bad_form)
def entry(request, pk):
    match = _match_to_change(request, pk)
    games = request.POST.get("games")
    try:
        if request.POST.get("extra"):
            # The calculator's "add the pending extra games" box: asked for, never assumed.
            games = rules.whole_number(games, gettext_lazy("Games")) + rules.whole_number(
                request.POST["extra"], gettext_lazy("Extra games")
            )
        match.record(
            request.user,
            deal=request.POST.get("deal"),
            side=request.POST.get("side"),
            games=games,
            sweep=_checked(request, "sweep"),
        )
    except rules.Refusal as refusal:
        return _refused(request, refusal, reverse("match", args=[pk]))
    return _changed(request, match, clear=("calc-result",))


@require_POST
@posted.only(refuse=bad_form)
def undo(request, pk):
    match = _match_to_change(request, pk)
    try:
        match.undo(request.user)
    except rules.Refusal as refusal:
        return _refused(request, refusal, reverse("match", args=[pk]))
    return _changed(request, match)


@require_POST
@posted.only("a", "b", "sweep", refuse=bad_form)
def correct(request, pk, number):
    match = _match_to_change(request, pk)
    try:
        match.correct(
            request.user,
            number=number,
            a=request.POST.get("a"),
            b=request.POST.get("b"),
            sweep=_checked(request, "sweep"),
        )
    except rules.Refusal as refusal:
        return _refused(request, refusal, reverse("match", args=[pk]))
    return _changed(request, match, notice=_("Deal %(number)s corrected.") % {"number": number})


@require_http_methods(["GET", "POST"])
@posted.only(refuse=bad_form)
def end(request, pk):
    """GET asks first (the page without JavaScript); POST ends the match."""
    match = _match_to_change(request, pk)
    if request.method == "GET":
        return render(request, "matches/end.html", {"match": match, "names": match.side_names()})
    try:
        match.end(request.user)
    except rules.Refusal as refusal:
        return _refused(request, refusal, reverse("match", args=[pk]))
    return _changed(request, match)


@require_POST
@posted.only("side", "deal", "text", refuse=bad_form)
def add_note(request, pk):
    match = _match_to_change(request, pk)
    try:
        match.add_note(
            request.user,
            side=request.POST.get("side"),
            text=request.POST.get("text"),
            deal=request.POST.get("deal", "").strip() or None,
        )
    except rules.Refusal as refusal:
        return _refused(request, refusal, reverse("match", args=[pk]))
    return _changed(request, match)


@require_POST
@posted.only(refuse=bad_form)
def withdraw_note(request, pk, note_id):
    match = _match_to_change(request, pk)
    try:
        match.withdraw_note(request.user, note_id)
    except rules.Refusal as refusal:
        return _refused(request, refusal, reverse("match", args=[pk]))
    return _changed(request, match)


@require_POST
@posted.only(refuse=bad_form)
def renew(request, pk):
    match = _match_to_change(request, pk)
    try:
        match.renew_links(request.user)
    except rules.Refusal as refusal:
        return _refused(request, refusal, reverse("match", args=[pk]))
    return _changed(request, match, notice=_("New links made: the old ones no longer work."))


@require_POST
@posted.only(refuse=bad_form)
def rematch(request, pk):
    match = _match_to_change(request, pk)
    try:
        following = match.rematch(request.user)
    except rules.Refusal as refusal:
        return _refused(request, refusal, reverse("match", args=[pk]))
    return _go(request, reverse("match", args=[following.pk]))


@require_POST
@posted.only("side", "points", "every_trick", *rules.CARD_VALUES, refuse=bad_form)
def calculator(request, pk):
    """Points or cards to games. It only answers; entering is a separate tap."""
    match = _match_for_viewer(request, pk)
    calc = _calculate(request, match)
    status = 400 if calc.get("error") else 200
    if request.htmx:
        response = render(request, "matches/match.html#calc_result", {"calc": calc}, status=status)
        if status != 200:
            reswap(retarget(response, "#calc-result"), "innerHTML")
        return response
    return render(request, "matches/match.html", _page(request, match, calc=calc), status=status)


# Problems ------------------------------------------------------------------------


def not_found(request, exception=None):
    return _not_found(
        request, _("There is nothing here, or it is not yours to see. Is it your match? Log in.")
    )


def bad_request(request, exception=None):
    """Django's own refusals: a body over the size limit, a malformed request."""
    message = _("This request was too large or malformed, so nothing was done.")
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": message}, status=400)
    if getattr(request, "htmx", False):  # absent when a middleware refused the request early
        return _alert(request, message, 400)
    return render(request, "problem.html", {"message": message}, status=400)


def csrf_failure(request, reason=""):
    return _problem(
        request,
        _("This page was out of date, so nothing was done. Reload the page and try again."),
        status=403,
    )


def _not_found(request, message):
    return _problem(request, message, status=404)


def _problem(request, message, *, status):
    if request.htmx:
        return _alert(request, message, status)
    return render(request, "problem.html", {"message": message}, status=status)


def _alert(request, message, status, target="#messages"):
    response = render(request, "base.html#message", {"message": message}, status=status)
    return reswap(retarget(response, target), "innerHTML")


# Helpers -----------------------------------------------------------------------


def _posted(request):
    # A POST with no fields at all is still a POST: its form is bound, and refused.
    return request.POST if request.method == "POST" else None


def _checked(request, name):
    value = request.POST.get(name, "").lower()
    if value not in CHECKED and value not in UNCHECKED:
        # A checkbox sends "on" or nothing: anything else did not come from our page.
        raise rules.InvalidInput(
            gettext_lazy("A box is either ticked or not: %(value)s is neither."), value=value[:20]
        )
    return value in CHECKED


def _go(request, url):
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _refused(request, refusal, back):
    """The rule's message in the page: swapped in for htmx, a message after a redirect."""
    if request.htmx:
        return _alert(request, explain(refusal), refusal.status)
    messages.error(request, explain(refusal))
    return redirect(back)


def _changed(request, match, *, clear=(), notice=None):
    """After a change: back to the sheet, or the fresh sheet fragment for htmx."""
    if not request.htmx:
        if notice:
            messages.success(request, notice)
        return redirect("match", pk=match.pk)
    # The seats and deals come from the change itself, read under the match's lock.
    match.hold_sheet()
    prefetch_related_objects([match], _active_notes())
    response = _sheet_response(request, match)
    said = render_to_string(
        "base.html#message", {"message": notice, "level": "success"}, request=request
    )
    response.content += (
        f'<div id="messages" hx-swap-oob="innerHTML">{said if notice else ""}</div>'.encode()
    )
    for name in clear:
        response.content += f'<div id="{name}" hx-swap-oob="innerHTML"></div>'.encode()
    return response


def _seats():
    return Prefetch("seats", queryset=Seat.objects.select_related("user"))


def _active_notes():
    return Prefetch(
        "notes",
        queryset=RevokeNote.objects.filter(withdrawn=False).select_related("author"),
        to_attr="active_notes",
    )


def _with_sheet(matches):
    """Everything the sheet shows in a fixed number of queries, however long the match."""
    return matches.select_related("host", "ended_by").prefetch_related(
        _seats(),
        "deals",
        _active_notes(),
    )


def _match_for_viewer(request, pk):
    """The match with its whole sheet for its host and members; a 404 for everyone else."""
    # The seats read for the sheet say who may see it: no second join for visible_to().
    match = _with_sheet(Match.objects.filter(pk=pk)).first()
    if match is None or not match.can_see(request.user):
        raise Http404
    return match


def _match_to_change(request, pk):
    """The match, for its host and members, before one of its changes, which reads
    the seats and deals under the match's lock: they are not read here too."""
    match = (
        Match.objects.visible_to(request.user)
        .select_related("host", "ended_by")
        .filter(pk=pk)
        .first()
    )
    if match is None:
        raise Http404
    return match


def _etag(request, version, watching, user_id=None):
    # The page differs by viewer (Nós is whoever looks) and by language.
    viewer = "w" if watching else f"u{request.user.pk if user_id is None else user_id}"
    return f'"{version}-{viewer}-{get_language()}"'


def _poll_token(match, user):
    """The viewer's signature on the poll URL: see sheet()."""
    return signing.dumps([match.pk, user.pk], salt=POLL_SALT)


def _poll_viewer(request, pk):
    """The user a valid poll signature for this match names, or None."""
    try:
        match_id, user_id = signing.loads(
            request.GET.get("t", ""), salt=POLL_SALT, max_age=POLL_TOKEN_AGE
        )
    except (signing.BadSignature, TypeError, ValueError):
        return None
    return user_id if match_id == pk else None


def _version(pk):
    """The one column the unchanged poll needs, in one round trip.

    The poll is most of the traffic. Building this query with the ORM took as long
    as running it, and the connection health check (CONN_HEALTH_CHECKS) would cost
    a round trip of its own: here the query is the check, and a connection that
    died (PostgreSQL restarted) is replaced and the query tried once more.
    """
    sql = f'SELECT "version" FROM "{Match._meta.db_table}" WHERE "id" = %s'
    for attempt in range(2):
        if not connection.in_atomic_block:
            connection.health_check_done = True
        try:
            with connection.cursor() as cursor:
                cursor.execute(sql, [pk])
                row = cursor.fetchone()
        except (InterfaceError, OperationalError):
            if attempt or connection.in_atomic_block:
                raise
            connection.close()
        else:
            return row[0] if row else None


def _not_modified(etag):
    response = HttpResponseNotModified()
    response["ETag"] = etag
    patch_cache_control(response, private=True, no_cache=True)
    return response


@lru_cache(maxsize=512)
def _qr(url, title):
    # A pure function of the link, and slow to draw (milliseconds): drawn once per link.
    return segno.make(url, error="m").svg_inline(scale=4, light="#fff", svgclass="qr", title=title)


def _poll(request, version, load, *, watching):
    etag = _etag(request, version, watching)
    if etag in parse_etags(request.headers.get("If-None-Match", "")):
        return _not_modified(etag)
    return _sheet_response(request, load(), watching=watching)


def _sheet_response(request, match, *, watching=False):
    context = _table(request, match, watching=watching)
    response = render(request, "matches/match.html#sheet", context)
    response["ETag"] = context["etag"]
    patch_cache_control(response, private=True, no_cache=True)
    return response


def _keys(pending):
    """The big buttons of a side: the games for each band of points, extras added in sight."""

    def label(games):
        return f"{games}+{pending}={games + pending}" if pending else str(games)

    return [
        {"games": 0, "label": "0", "hint": _("60 or less")},
        {"games": 1 + pending, "label": label(1), "hint": _("61 to 90")},
        {"games": 2 + pending, "label": label(2), "hint": _("91 or more")},
        {
            "games": rules.BANDEIRA_GAMES + pending,
            "label": label(rules.BANDEIRA_GAMES),
            "hint": _("every trick: bandeira"),
            "sweep": True,
        },
    ]


def _describe(sides, pending, marks):
    """The crosses in words, for screen readers and anyone who cannot see the dots."""
    text = ", ".join(
        ngettext("%(side)s: %(games)s game", "%(side)s: %(games)s games", side["games"])
        % {"side": side["label"], "games": side["games"]}
        for side in sides
    )
    words = [text]
    if pending:
        words.append(
            ngettext("%(count)s extra game pending", "%(count)s extra games pending", pending)
            % {"count": pending}
        )
    if "bandeira" in marks:
        words.append(_("a flag for the bandeira"))
    if "shutout" in marks:
        words.append(_("a cat face on both crosses for the shutout"))
    if "chapeu" in marks:
        words.append(_("a hat for the chapéu"))
    return ". ".join(capfirst(sentence) for sentence in words) + "."


def _table(request, match, *, watching=False):
    """What the sheet fragment shows to this viewer: their side is Nós, the other Eles."""
    user = request.user
    seat = None if watching else match.seat_of(user)
    hosting = not watching and match.is_host(user)
    mine = seat.side if seat else None
    order = (mine, rules.other(mine)) if mine else rules.SIDES
    names = match.side_names()
    labels = {mine: "Nós", rules.other(mine): "Eles"} if mine else names
    seat_names = {seat.position: seat.name for seat in match.seat_list()}
    people = {seat.user_id: seat.user.name for seat in match.seat_list() if seat.user_id}
    people[match.host_id] = match.host.name
    deals = match.deal_list()
    # Only the host and seated players write cells, so the seats and the host name
    # their authors without reading each deal's users; any other author is read here.
    strangers = {
        user_id
        for deal in deals
        for user_id in (deal.a_by_id, deal.b_by_id)
        if user_id is not None and user_id not in people
    }
    if strangers:
        people.update((user.pk, user.name) for user in User.objects.filter(pk__in=strangers))
    sheet = [deal.as_rule() for deal in deals]
    current = rules.current_deal(sheet)
    pending = rules.pending_extra(sheet[: current - 1]) if match.in_play else 0
    now = deals[-1] if deals and deals[-1].number == current else None
    games = {"a": match.games_a, "b": match.games_b}
    marks = set(match.marks)

    sides = []
    for position, side in enumerate(order):
        entered = getattr(now, side) if now else None
        entered_by = people.get(getattr(now, f"{side}_by_id")) if now else None
        may_enter = match.in_play and (hosting or side == mine)
        sides.append(
            {
                "side": side,
                "label": labels[side],
                "names": names[side],
                "games": games[side],
                "x": 120 * position,
                "arms": [
                    {"x": x, "y": y, "won": number < games[side]}
                    for number, (x, y) in enumerate(ARMS)
                ],
                "beyond": games[side] > len(ARMS),
                "winner": match.winner == side,
                "flag": match.winner == side and "bandeira" in marks,
                "hat": match.winner == side and "chapeu" in marks,
                "entered": entered,
                "entered_by": entered_by or "",
                "keys": _keys(pending) if may_enter and entered is None else [],
            }
        )

    # Each of the sheet's links reversed once here, not once per form in the template.
    urls = {name: reverse(name, args=[match.pk]) for name in MATCH_URLS}
    urls["night"] = reverse("night", args=[match.night_id])

    rows = []
    for deal, running in zip(deals, rules.running_totals(deals), strict=True):
        rows.append(
            {
                "number": deal.number,
                "cells": [
                    {
                        "side": side,
                        "label": labels[side],
                        "games": getattr(deal, side),
                        "by": people.get(getattr(deal, f"{side}_by_id")),
                    }
                    for side in order
                ],
                "running": [running[side] for side in order] if deal.complete else None,
                "complete": deal.complete,
                "tie": deal.tie,
                "sweep": deal.sweep,
                "dealer": seat_names[match.dealer(deal.number)],
                "correct_url": reverse("correct", args=[match.pk, deal.number])
                if hosting
                else None,
            }
        )

    acting = not watching and (seat is not None or hosting)
    undo = None
    if acting and match.status != Match.ENDED:
        latest = match.latest_entry()
        if latest is not None and (latest.by_id == user.pk or hosting):
            side = latest.after["side"]
            undo = {
                "deal": latest.deal,
                "label": labels[side],
                "games": latest.after[side],
                "by": people.get(latest.by_id, _("someone")),
            }

    notes = []
    for note in match.active_notes:
        may_withdraw = not watching and (note.author_id == user.pk or hosting)
        notes.append(
            {
                "id": note.pk,
                "label": labels[note.side],
                "deal": note.deal,
                "text": note.text,
                "author": note.author.name,
                "may_withdraw": may_withdraw,
                "withdraw_url": reverse("withdraw_note", args=[match.pk, note.pk])
                if may_withdraw
                else None,
            }
        )

    following = None
    if acting and not match.in_play:
        after = (
            match.events.filter(action=Event.REMATCH)
            .order_by("-id")
            .values_list("after", flat=True)
            .first()
        )
        following = after.get("match") if after else None

    invite = None
    if hosting:
        join_url = request.build_absolute_uri(reverse("join", args=[match.join_token]))
        qr = _qr(join_url, _("QR code of the join link"))
        invite = {
            "join_url": join_url,
            "watch_url": request.build_absolute_uri(reverse("watch", args=[match.watch_token])),
            "qr": mark_safe(qr),  # segno's own SVG; the URL inside is escaped by segno
            "free": sum(1 for seat in match.seat_list() if seat.user_id is None),
        }

    winner = match.winner or None
    etag = _etag(request, match.version, watching)
    poll_url = (
        reverse("watch_sheet", args=[match.watch_token])
        if watching
        else f"{reverse('sheet', args=[match.pk])}?{urlencode({'t': _poll_token(match, user)})}"
    )
    return {
        "match": match,
        "watching": watching,
        "hosting": hosting,
        "seat": seat,
        "acting": acting,
        "order": order,
        "labels": labels,
        "names": names,
        "sides": sides,
        "crosses_text": _describe(sides, pending, marks),
        "marks": marks,
        "rows": rows,
        "current": current,
        "pending": pending,
        "turn": {
            "dealer": seat_names[match.dealer(current)],
            "leader": seat_names[match.leader(current)],
        }
        if match.in_play
        else None,
        "winner_label": labels[winner] if winner else "",
        "loser_games": games[rules.other(winner)] if winner else None,
        "winner_games": games[winner] if winner else None,
        "undo": undo,
        "notes": notes,
        "following": following,
        "invite": invite,
        "may_correct": hosting and match.status != Match.ENDED and bool(rows),
        "may_end": acting and match.in_play,
        "may_rematch": hosting and not match.in_play,
        "etag": etag,
        "urls": urls,
        "poll_url": poll_url,
        "poll_headers": json.dumps({"If-None-Match": etag}),
    }


def _page(request, match, *, calc=None):
    """The whole sheet page: the fragment, and beside it the calculator and the note form."""
    context = _table(request, match)
    typed = request.POST if calc else {}
    context.update(
        calc=calc,
        calc_input=typed,
        calc_ranks=[
            {"name": rank, "label": _(label), "value": typed.get(rank, "")}
            for rank, label in rules.CARD_LABELS.items()
        ],
        calc_cards_given=any(typed.get(rank) for rank in rules.CARD_LABELS),
        calc_sides=[{"side": side, "label": context["labels"][side]} for side in context["order"]],
        language_next=reverse("match", args=[match.pk]),
    )
    return context


def _calculate(request, match):
    post = request.POST
    points = post.get("points", "").strip() or None
    counts = {rank: post.get(rank, "").strip() for rank in rules.CARD_VALUES}
    cards = {rank: count or 0 for rank, count in counts.items()} if any(counts.values()) else None
    try:
        result = rules.calculate(
            points=points, cards=cards, every_trick=_checked(request, "every_trick")
        )
    except rules.Refusal as refusal:
        return {"error": explain(refusal), "match": match}
    table = _table(request, match)
    mine = table["seat"].side if table["seat"] else None
    side = mine or (post.get("side") if post.get("side") in rules.SIDES else "a")
    cell_open = next(s["keys"] for s in table["sides"] if s["side"] == side)
    return {
        "match": match,
        "result": result,
        "side": side,
        "label": table["labels"][side],
        "other_label": table["labels"][rules.other(side)],
        "deal": table["current"],
        "pending": table["pending"] if result.games else 0,
        "may_enter": bool(cell_open),
    }


# Looking back: nights, history, standings, exports ------------------------------

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
    order = (side, rules.other(side)) if side else rules.SIDES
    return {
        "match": match,
        "sides": [{"names": names[s], "games": games[s], "won": match.winner == s} for s in order],
        "marks": [MARKS[mark] for mark in match.marks],
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
        line["outcome_label"] = OUTCOMES[line["outcome"]]
        lines.append(line)
    context = {
        "form": form,
        "page": page,
        "pages": _pages(request, page),
        "lines": lines,
        "query": _query(request, "page"),
    }
    template = "matches/history.html#rubbers" if request.htmx else "matches/history.html"
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
            except rules.Refusal as refusal:
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
        "tally": night.tally(),
        "next_from": last if hosting and last and not last.in_play else None,
    }
    return render(request, "matches/night.html", context)


@login_required
@require_GET
def rubber(request, pk):
    """A rubber of the person's: the whole sheet read-only, its notes and every change."""
    match = _played_rubber(
        request,
        pk,
        Match.objects.select_related("night", "host", "ended_by").prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("user")),
            Prefetch("deals", queryset=Deal.objects.select_related("a_by", "b_by")),
            Prefetch("notes", queryset=RevokeNote.objects.select_related("author")),
        ),
    )
    names = match.side_names()
    seated = {seat.position: seat.name for seat in match.seat_list()}
    deals = match.deal_list()
    rows = []
    for deal, running in zip(deals, rules.running_totals(deals), strict=True):
        rows.append(
            {
                "deal": deal,
                "dealer": seated[match.dealer(deal.number)],
                "running": (running["a"], running["b"]) if deal.complete else None,
            }
        )
    events = list(match.events.select_related("by").order_by("id"))
    rematches = [event.after["match"] for event in events if event.action == Event.REMATCH]
    context = {
        "match": match,
        "line": _line(match, match.side),
        "outcome_label": OUTCOMES[outcome(match)],
        "names": names,
        "rows": rows,
        "notes": [{"note": note, "side": names[note.side]} for note in match.notes.all()],
        "changes": [_change(event, names, seated) for event in events],
        "following": rematches[-1] if rematches else None,
        "next_from": match if match.is_host(request.user) and not match.in_play else None,
    }
    return render(request, "matches/rubber.html", context)


def _cells(state):
    if not state or "a" not in state:
        return ""

    def cell(value):
        return "…" if value is None else str(value)

    bandeira = f" ({_('bandeira')})" if state.get("sweep") else ""
    return f"{cell(state['a'])}–{cell(state['b'])}{bandeira}"


def _change(event, names, seated):
    """One line of the change history: when, who, what, and the values before and after."""
    before, after = event.before or {}, event.after or {}
    detail = ""
    if event.action in ("entry", "undo", "correction"):
        detail = f"{_cells(before)} → {_cells(after)}"
    elif event.action in ("note", "note_withdrawn"):
        note = after or before
        detail = f"{names.get(note.get('side'), '')}: {note.get('text', '')}"
    elif event.action == "join":
        detail = f"{seated.get(after.get('seat'), '')} ({after.get('seat', '')})"
    elif event.action == "end":
        games = after.get("games", {})
        detail = f"{games.get('a', 0)}–{games.get('b', 0)}"
    elif event.action == "rematch" and after.get("match"):
        detail = _("rubber %(number)s") % {"number": after["match"]}
    return {
        "at": event.at,
        "by": event.by.name if event.by else _("someone"),
        "what": event.get_action_display(),
        "deal": event.deal,
        "detail": detail,
    }


@login_required
@require_GET
def standings(request):
    played = Match.objects.played_by(request.user)
    form = _filters(request, played)
    table = form.apply(played).standings()
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
    template = "matches/standings.html#tables" if request.htmx else "matches/standings.html"
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
    form = RematchForm(request.POST or None, match=match)
    if request.method == "POST" and form.is_valid():
        try:
            following = match.rematch(request.user, form.seats())
        except rules.Refusal as refusal:
            form.add_error(None, explain(refusal))
        else:
            return redirect("match", pk=following.pk)
    return _form_page(request, "matches/rematch.html", form, match=match, line=_line(match))


# Exports -----------------------------------------------------------------------------


def _download(content, content_type, filename):
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _csv(matches, filename):
    out = io.StringIO()
    export.write_csv(matches, out)
    return _download(out.getvalue(), "text/csv; charset=utf-8", filename)


def _json(data, filename):
    body = json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2)
    return _download(body, "application/json", filename)


@login_required
@require_GET
def match_export(request, pk, format):
    match = _played_rubber(request, pk, export.full(Match.objects.all()))
    if format == "csv":
        return _csv([match], f"rubber-{match.pk}.csv")
    return _json(export.match_json(match), f"rubber-{match.pk}.json")


@login_required
@require_GET
def night_export(request, pk, format):
    night = export.nights_with_rubbers(Night.objects.visible_to(request.user)).filter(pk=pk).first()
    if night is None:
        raise Http404
    if format == "csv":
        return _csv(export.night_rubbers(night), f"night-{night.pk}.csv")
    return _json(export.night_json(night), f"night-{night.pk}.json")


@login_required
@require_GET
def my_data(request):
    return _json(export.personal_data(request.user), "squarescores-my-data.json")
