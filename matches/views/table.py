"""The table: opening, joining and watching a match, and keeping its sheet.

Each action reads the request, runs one model method through ``act`` and
answers: the sheet fragment for htmx, a redirect after a plain POST. The
models check every rule and permission; a refusal becomes a message in the
page and changes nothing. What a viewer sees of the sheet is ``sheet.read``.
"""

import json
from functools import lru_cache
from urllib.parse import urlencode

import segno
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.http import Http404, HttpResponseNotAllowed
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import condition, require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, HttpResponseLocation

from .. import conditional, limits, links, posted, rules, values
from ..forms import SEAT_LABELS, SIDE_LABELS, GuestForm, JoinForm, NewMatchForm
from ..models import Match, SeatRequest, explain
from ..sheet import read
from ..standings import tally
from .answers import alert, bad_form, form_page, go, not_found, refused, too_many
from .answers import posted as posted_data

POLL_SALT = "matches.sheet-poll"
POLL_TOKEN_AGE = 24 * 60 * 60  # a page open longer than a day polls the whole way


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


# Opening, joining and watching a match ----------------------------------------


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
                night_name=form.cleaned_data["night_name"],
                place=form.cleaned_data["place"],
            )
        except values.Refusal as refusal:
            form.add_error(None, explain(refusal))
        else:
            return redirect("match", pk=match.pk)
    labels = json.dumps({position: str(label) for position, label in SEAT_LABELS.items()})
    return form_page(request, "matches/new.html", form, seat_labels=labels)


@require_http_methods(["GET", "POST"])
@limits.limit_posts(limits.GuestThrottle, too_many, anonymous_only=True)
@posted.only(form=JoinForm, refuse=bad_form)
def join(request, token):
    """The night's join link, at its rubber in play: take a free seat in one tap on its
    name (or with a name of one's own); when the seat is held by one's old browser, ask
    for it back. A browser with no account signs in as the seat's player: a new guest
    named after the seat (or the name typed), or the guest it was before."""
    match = Match.objects.for_sheet().of_night(join_token=token).first()
    if match is None:
        return not_found(request, _join_link_gone())
    _back_in(request, match)
    if match.seat_of(request.user) is not None:
        return go(request, reverse("match", args=[match.pk]))
    free = [seat for seat in match.seat_list() if seat.user_id is None]
    form = JoinForm(posted_data(request), free_seats=free)
    status = None
    if request.method == "POST" and form.is_valid():
        anonymous = not request.user.is_authenticated
        try:
            seat = match.join(
                None if anonymous else request.user,
                token=token,
                position=form.cleaned_data["seat"],
                name=form.cleaned_data["name"] or None,
            )
        except values.Refusal as refusal:
            # Taken meanwhile, say: the page again as it is now, saying so, with what
            # they typed still there.
            form.add_error(None, explain(refusal))
            status = refusal.status
            match = Match.objects.for_sheet().get(pk=match.pk)
            form.offer([seat for seat in match.seat_list() if seat.user_id is None])
        else:
            if anonymous:
                login(request, seat.user)
            return go(request, reverse("match", args=[match.pk]))
    return _join_page(request, match, form, status)


def _back_in(request, match):
    """A browser whose request for a guest's seat was approved is that guest again:
    it signs in as them (``Match.answer_seat_request`` says whom, in ``seated``)."""
    if not request.user.is_authenticated:
        return
    approved = (
        SeatRequest.objects.filter(match__night_id=match.night_id, user=request.user)
        .filter(approved=True, seated__isnull=False)
        .exclude(seated=request.user)
        .select_related("seated")
        .order_by("-id")
        .first()
    )
    if approved is not None:
        login(request, approved.seated)


def _join_page(request, match, form, status=None):
    seats = match.seat_list()
    asked = None
    if request.user.is_authenticated:
        # Their latest request for a seat: waiting for an answer, or turned down.
        asked = match.seat_requests.filter(user=request.user).order_by("-id").first()
        if asked is not None and asked.approved:
            asked = None
    context = {
        "form": form,
        "match": match,
        "names": match.side_names(),
        # Each seat with its side's name: (seat, "Side A").
        "free": [(seat, SIDE_LABELS[seat.side]) for seat in seats if seat.user_id is None],
        "held": [(seat, SIDE_LABELS[seat.side]) for seat in seats if seat.user_id is not None],
        "asked": asked,
        "asked_name": match.seat_at(asked.position).name if asked else "",
    }
    if status is None:
        status = 400 if form.errors else 200
    return render(request, "matches/join.html", context, status=status)


@limits.limit_posts(limits.GuestThrottle, too_many, anonymous_only=True)
@posted.only("seat", refuse=bad_form)
def ask_for_seat(request, token):
    """Ask for a held seat back ("this is my seat"), in the night's rubber in play; a
    member or the host answers on the sheet. A browser with no account gets a guest
    account of its own for the request."""
    match = Match.objects.for_sheet().of_night(join_token=token).first()
    if match is None:
        return not_found(request, _join_link_gone())
    if request.method != "POST":
        # Only after the token: a wrong one shows nothing, as every link's page does.
        return HttpResponseNotAllowed(["POST"])
    anonymous = not request.user.is_authenticated
    try:
        asked = match.ask_for_seat(
            None if anonymous else request.user,
            token=token,
            position=values.check_seat(request.POST.get("seat")),
        )
    except values.Refusal as refusal:
        return refused(request, refusal, reverse("join", args=[token]))
    if anonymous:
        login(request, asked.user)
    messages.success(
        request,
        _("Asked: a player at the table or the host will see it on the sheet and let you in."),
    )
    return go(request, reverse("join", args=[token]))


@require_http_methods(["GET", "POST"])
@limits.limit_posts(limits.GuestThrottle, too_many, anonymous_only=True)
@posted.only(refuse=bad_form)
def seat_link(request, pk, position, token):
    """The host's link for one seat: the page says whose seat it is, and one tap takes
    it, in place of whoever holds it. Opening it changes nothing (a messaging app
    opens links to preview them); the tap does, and spends the link."""
    match = Match.objects.for_sheet().filter(pk=pk).first()
    if match is None or not match.seat_link_is(position, token):
        holds = match is not None and match.seat_of(request.user)
        if holds and holds.position == position:
            return redirect("match", pk=pk)  # the link was theirs, and spent
        return not_found(
            request, _("This link for a seat is not valid any more: ask the host for a new one.")
        )
    seat = match.seat_at(position)
    if request.method == "POST":
        anonymous = not request.user.is_authenticated
        try:
            taken = match.take_seat_by_link(None if anonymous else request.user, position, token)
        except values.Refusal as refusal:
            return refused(request, refusal, reverse("seat_link", args=[pk, position, token]))
        if anonymous:
            login(request, taken.user)  # the seat's guest again, or a new one
        return go(request, reverse("match", args=[pk]))
    context = {"match": match, "seat": seat, "side": SIDE_LABELS[seat.side], "token": token}
    return render(request, "matches/join.html", {**context, "names": match.side_names()})


def _join_link_gone():
    return _("This join link is not valid any more: ask the host for the new one.")


def _watch_link_gone():
    return _("This watch link is not valid any more: ask the host for the new one.")


@require_GET
def watch(request, token):
    """A shared screen's sheet. The link follows its night: it shows the newest rubber
    of the chain that starts at the link's match, so nobody re-points the screen."""
    newest = Match.objects.newest_rubber(watch_token=token)
    if newest is None:
        return not_found(request, _watch_link_gone())
    context = _watch_context(request, newest[0], token)
    return _with_etag(render(request, "matches/watch.html", context), context)


def _watch_etag(request, token):
    newest = Match.objects.newest_rubber(watch_token=token)
    return None if newest is None else conditional.etag(newest[1], conditional.watching(newest[0]))


@require_GET
@condition(etag_func=_watch_etag)
def watch_sheet(request, token):
    """The watch screen's poll: 304 while unchanged (``condition``), else the fragment.
    Once the next rubber has started (the screen says which it shows in ``rubber``),
    htmx loads the watch page again in place (HX-Location): the new sheet, heading
    and title. A fragment would not do: app.js never swaps in a sheet with a lower
    version, and a new rubber starts again from 1."""
    newest = Match.objects.newest_rubber(watch_token=token)
    if newest is None:
        return not_found(request, _watch_link_gone())
    if request.htmx and request.GET.get("rubber") != str(newest[0]):
        return HttpResponseLocation(reverse("watch", args=[token]))
    context = _watch_context(request, newest[0], token)
    return _with_etag(render(request, "matches/watch.html#poll", context), context)


def _watch_context(request, pk, token):
    """The watch screen's rubber ``pk`` as anyone sees it, and the night's tally
    beside it. A rubber won changes the tally while the screen still shows that
    rubber, so every changed poll reads it again: two queries more (the night's
    rubbers and their seats; the night comes with the sheet), however long the night."""
    match = Match.objects.for_sheet().select_related("night").get(pk=pk)
    context = sheet_context(request, read(match, watching=True), watch_token=token)
    rubbers = match.night.rubbers()
    context["night"] = {
        "pairs": tally(rubbers)["pairs"],
        "played": sum(rubber.status != Match.IN_PLAY for rubber in rubbers),
        "ended": sum(rubber.status == Match.ENDED for rubber in rubbers),
    }
    return context


# The sheet ----------------------------------------------------------------------


def sheet_context(request, sheet, *, watch_token=None):
    """What the sheet's templates need beside the reading: its links and its poll.
    A watch screen polls with the link it was opened with (``watch_token``), which
    follows the night, and says which rubber it shows."""
    match = sheet.match
    if sheet.watching:
        viewer = conditional.watching(match.pk)
        poll_url = reverse("watch_sheet", args=[watch_token or match.watch_token])
        poll_url = f"{poll_url}?{urlencode({'rubber': match.pk})}"
    else:
        viewer = f"u{request.user.pk}"
        signature = signing.dumps([match.pk, request.user.pk], salt=POLL_SALT)
        poll_url = f"{reverse('sheet', args=[match.pk])}?{urlencode({'t': signature})}"
    etag = conditional.etag(sheet.version, viewer)
    return {
        "sheet": sheet,
        "match": match,
        "etag": etag,
        "poll_url": poll_url,
        "poll_ms": settings.SHEET_POLL_MS,
        "poll_headers": json.dumps({"If-None-Match": etag}),
    }


def _with_etag(response, context):
    return conditional.validators(response, context["etag"])


def _sheet_fragment(request, sheet, *, notice=None, answer_in="#messages", **extra):
    context = sheet_context(request, sheet)
    context.update(extra, notice=notice, answer_in=answer_in.lstrip("#"))
    template = "matches/match.html#changed" if notice is not None else "matches/match.html#sheet"
    return _with_etag(render(request, template, context), context)


def _match_for_viewer(request, pk):
    """The match with its whole sheet for its host and members; a 404 for everyone else."""
    # The seats read for the sheet say who may see it: no second join for visible_to().
    match = Match.objects.for_sheet().filter(pk=pk).first()
    if match is None or not match.can_see(request.user):
        raise Http404
    return match


def _match_to_change(request, pk):
    """The match, for its host and members, before one of its changes (which reads
    it again under the match's lock)."""
    match = Match.objects.visible_to(request.user).filter(pk=pk).first()
    if match is None:
        raise Http404
    return match


def _poll_viewer(request, pk):
    """The user a valid poll signature for this match names, or None."""
    try:
        match_id, user_id = signing.loads(
            request.GET.get("t", ""), salt=POLL_SALT, max_age=POLL_TOKEN_AGE
        )
    except (signing.BadSignature, TypeError, ValueError):
        return None
    return user_id if match_id == pk else None


def _poll_etag(request, pk):
    """The poll's ETag from its signature and the match's version alone, without
    the session: while it is the one the phone has, ``condition`` answers 304.
    Every phone at every table asks every two seconds, and nearly always nothing
    has changed; a 304 tells nothing but "no change"."""
    user_id = _poll_viewer(request, pk)
    if user_id is None:
        return None  # no signature, or an old one: the view goes the whole way
    version = Match.objects.version(pk=pk)
    return None if version is None else conditional.etag(version, f"u{user_id}")


@require_GET
def match_page(request, pk):
    sheet = read(_match_for_viewer(request, pk), request.user)
    context = _page(request, sheet)
    return _with_etag(render(request, "matches/match.html", context), context)


@require_GET
@condition(etag_func=_poll_etag)
def sheet(request, pk):
    """The poll: 304 while the match's version is the one the page shows, else the
    fragment; its read of the match decides who may see it."""
    if _poll_viewer(request, pk) is None:
        # No signature, or an old one: the whole way, from whether they may see it.
        versions = Match.objects.visible_to(request.user).filter(pk=pk).order_by()
        version = versions.values_list("version", flat=True).first()
        if version is None:
            raise Http404
        unchanged = conditional.not_modified(
            request, conditional.etag(version, f"u{request.user.pk}")
        )
        if unchanged is not None:
            return unchanged
    sheet = read(_match_for_viewer(request, pk), request.user)
    following = _rubber_to_follow(request, sheet) if request.htmx and sheet.next else None
    if following is not None:
        # A page load, not htmx's HX-Location: offline.js keeps unsent taps under the
        # match #queue names, read once as the page loads, and the service worker
        # keeps the sheets of page loads for a phone gone offline.
        return HttpResponseClientRedirect(reverse("match", args=[following]))
    context = sheet_context(request, sheet)
    return _with_etag(render(request, "matches/match.html#sheet", context), context)


def _rubber_to_follow(request, sheet):
    """Where a phone whose rubber has a next goes by itself: the newest rubber of the
    night it may see (a phone asleep through two rematches goes to the last); None if
    that is this one, and it keeps the old sheet with its message."""
    newest = (
        Match.objects.visible_to(request.user)
        .filter(night_id=sheet.match.night_id)
        .order_by("-created", "-id")
        .values_list("pk", flat=True)
        .first()
    )
    return newest if newest != sheet.match.pk else None


def act(request, pk, change, *, notice=None, answer_in="#messages", **extra):
    """Run ``change(match)``, one of the match's own methods, on match ``pk`` (a 404
    for anyone who may not see it) and answer: the sheet read again for htmx, with
    ``notice`` in ``answer_in`` (the box beside the control that was used: the keys',
    the calculator's, the note form's, a correction's row; ``notice`` may be a
    function of the changed sheet); a redirect to the sheet
    after a plain POST. A refusal becomes its message in that same box and changes
    nothing."""
    match = _match_to_change(request, pk)
    try:
        change(match)
    except values.Refusal as refusal:
        return refused(request, refusal, reverse("match", args=[pk]), target=answer_in)
    changed = None
    if callable(notice):  # words that need the sheet as the change left it
        changed = read(Match.objects.for_sheet().get(pk=pk), request.user)
        notice = notice(changed)
    if not request.htmx:
        if notice:
            messages.success(request, notice)
        return redirect("match", pk=pk)
    changed = changed or read(Match.objects.for_sheet().get(pk=pk), request.user)
    return _sheet_fragment(request, changed, notice=notice or "", answer_in=answer_in, **extra)


@require_POST
@posted.only("deal", "side", "games", "sweep", "via", refuse=bad_form)
def entry(request, pk):
    data = request.POST

    def record(match):
        match.record(
            request.user,
            deal=data.get("deal"),
            side=data.get("side"),
            games=data.get("games"),
            sweep=values.ticked(data.get("sweep")),
        )

    if data.get("via") != "calculator":
        return act(request, pk, record)

    def recorded(sheet):
        row = next(row for row in sheet.rows if str(row.number) == data.get("deal"))
        cell = row.cell(data.get("side"))
        return _("Recorded: %(games)s for %(label)s in deal %(number)s.") % {
            "games": cell.games,
            "label": cell.label,
            "number": row.number,
        }

    # From the calculator's answer: confirmed there, where the player is looking.
    return act(request, pk, record, notice=recorded, answer_in="#calc-result")


@require_POST
@posted.only("deal", "side", "version", refuse=bad_form)
def undo(request, pk):
    """Undo the entry the page offered (its deal and side), on the sheet it showed."""
    meant = {name: request.POST.get(name) or None for name in ("deal", "side", "version")}
    return act(request, pk, lambda match: match.undo(request.user, **meant))


@require_POST
@posted.only("deal", "version", refuse=bad_form)
def redeal(request, pk):
    """The current deal was dealt again with nothing scored; the next player deals."""
    deal = request.POST.get("deal")
    seen = request.POST.get("version") or None
    return act(
        request,
        pk,
        lambda match: match.redeal(request.user, deal=deal, version=seen),
        # Said once the match took it, so the deal's number was read by then.
        notice=lambda sheet: (
            (
                _("Deal %(number)s dealt again: nothing scored, %(name)s deals again.")
                if sheet.redeal_rule == values.SAME_DEALER
                else _("Deal %(number)s dealt again: nothing scored, the next player deals.")
            )
            % {"number": values.read_deal(deal), "name": sheet.dealer_name}
        ),
    )


@require_POST
@posted.only("a", "b", "sweep", "version", refuse=bad_form)
def correct(request, pk, number):
    cells = request.POST
    return act(
        request,
        pk,
        lambda match: match.correct(
            request.user,
            number=number,
            a=cells.get("a"),
            b=cells.get("b"),
            sweep=values.ticked(cells.get("sweep")),
            version=cells.get("version") or None,
        ),
        notice=_("Deal %(number)s corrected.") % {"number": number},
        # The panel stays open where the host is, the row saying what became of it.
        answer_in=f"#fix-{number}-result",
        saved=number,
    )


@require_http_methods(["GET", "POST"])
@posted.only("version", refuse=bad_form)
def end(request, pk):
    """GET asks first (the page without JavaScript); POST ends the match."""
    if request.method == "GET":
        match = _match_for_viewer(request, pk)
        context = {
            "match": match,
            "names": match.side_names(),
            "version": request.GET.get("version", match.version),  # the sheet they saw
        }
        return render(request, "matches/end.html", context)
    seen = request.POST.get("version") or None
    return act(request, pk, lambda match: match.end(request.user, version=seen))


@require_POST
@posted.only("side", "deal", "text", refuse=bad_form)
def add_note(request, pk):
    note = request.POST
    return act(
        request,
        pk,
        lambda match: match.add_note(
            request.user,
            side=note.get("side"),
            text=note.get("text"),
            deal=note.get("deal", "").strip() or None,
        ),
        notice=_("Note added: it changes no score."),
        answer_in="#note-result",
    )


@require_POST
@posted.only(refuse=bad_form)
def withdraw_note(request, pk, note_id):
    return act(request, pk, lambda match: match.withdraw_note(request.user, note_id))


@require_POST
@posted.only(refuse=bad_form)
def renew(request, pk):
    return act(
        request,
        pk,
        lambda match: match.renew_links(request.user),
        notice=_("New links made: the old ones no longer work."),
    )


@require_POST
@posted.only("version", refuse=bad_form)
def rematch(request, pk):
    match = _match_to_change(request, pk)
    try:
        following = match.rematch(request.user, version=request.POST.get("version") or None)
    except values.Refusal as refusal:
        return refused(request, refusal, reverse("match", args=[pk]))
    return go(request, reverse("match", args=[following.pk]))


# Panels that load when opened: the host's corrections and the invite ---------------


@require_GET
def corrections(request, pk):
    """Every deal's two cells as a form, for the host; not part of the polled sheet."""
    sheet = read(_match_for_viewer(request, pk), request.user)
    if not sheet.may_correct:
        raise Http404
    template = "matches/panels.html#corrections" if request.htmx else "matches/panels.html"
    return render(request, template, {"sheet": sheet, "match": sheet.match, "panel": "corrections"})


@lru_cache(maxsize=512)
def _qr(url, title):
    # A pure function of the link, and slow to draw (milliseconds): drawn once per link.
    return segno.make(url, error="m").svg_inline(scale=4, light="#fff", svgclass="qr", title=title)


def _link(request, name, *args):
    """An absolute link to one of our pages, for sharing (the join link, a seat's link)."""
    return links.absolute(request, reverse(name, args=args))


@require_GET
def invite(request, pk):
    """The join link, its QR code and the watch link, and each seat with who holds it,
    for the host."""
    match = _match_for_viewer(request, pk)
    if not match.is_host(request.user):
        raise Http404
    return _invite(request, match)


def _invite(request, match):
    join_url = _link(request, "join", match.join_token)
    seats = []
    for seat in match.seat_list():
        shown = {"seat": seat, "side": SIDE_LABELS[seat.side], "held": seat.user_id is not None}
        if seat.link_token:
            url = _link(request, "seat_link", match.pk, seat.position, seat.link_token)
            title = _("QR code of the link for %(name)s's seat") % {"name": seat.name}
            shown.update(link=url, qr=mark_safe(_qr(url, title)))
        seats.append(shown)
    context = {
        "match": match,
        "panel": "invite",
        "invite": {
            "join_url": join_url,
            "watch_url": _link(request, "watch", match.watch_token),
            # segno's own SVG; the URL inside is escaped by segno
            "qr": mark_safe(_qr(join_url, _("QR code of the join link"))),
            "free": sum(1 for seat in match.seat_list() if seat.user_id is None),
            "seats": seats,
        },
    }
    template = "matches/panels.html#invite" if request.htmx else "matches/panels.html"
    return render(request, template, context)


def _change_seat(request, pk, change):
    """The host frees a seat or makes a link for it: the invite panel again, as it is
    now (in place for htmx); a refusal is its message."""
    match = _match_to_change(request, pk)
    try:
        change(match)
    except values.Refusal as refusal:
        return refused(request, refusal, reverse("invite", args=[pk]))
    if not request.htmx:
        return redirect("invite", pk=pk)
    return _invite(request, Match.objects.for_sheet().get(pk=pk))


@require_POST
@posted.only(refuse=bad_form)
def free_seat(request, pk, position):
    return _change_seat(request, pk, lambda match: match.free_seat(request.user, position))


@require_POST
@posted.only(refuse=bad_form)
def make_seat_link(request, pk, position):
    return _change_seat(request, pk, lambda match: match.make_seat_link(request.user, position))


@require_POST
@posted.only("approve", refuse=bad_form)
def answer_seat_request(request, pk, request_id):
    """Approve (the asker takes the seat) or turn down a request for a seat, from the sheet."""
    answer = request.POST.get("approve")  # yes or no, read by the API's own rule
    return act(
        request,
        pk,
        lambda match: match.answer_seat_request(request.user, request_id, values.ticked(answer)),
        notice=lambda sheet: (
            _("The seat is theirs now.") if values.ticked(answer) else _("Turned down.")
        ),
    )


# The calculator -------------------------------------------------------------------


@require_POST
@posted.only("side", "points", "every_trick", *rules.CARD_VALUES, refuse=bad_form)
def calculator(request, pk):
    """Points or cards to games. It only answers; entering is a separate tap."""
    sheet = read(_match_for_viewer(request, pk), request.user)
    calc = _calculate(request, sheet)
    status = 400 if calc.get("error") else 200
    if request.htmx and status == 400:
        return alert(request, calc["error"], status, target="#calc-result")
    if request.htmx:
        return render(request, "matches/match.html#calc_result", {"calc": calc})
    context = _page(request, sheet, calc=calc)
    return render(request, "matches/match.html", context, status=status)


def _page(request, sheet, *, calc=None):
    """The whole sheet page: the fragment, and beside it the calculator and the note form."""
    context = sheet_context(request, sheet)
    typed = request.POST if calc else {}
    context.update(
        calc=calc,
        calc_input=typed,
        calc_ranks=[
            {"name": rank, "label": _(label), "value": typed.get(rank, "")}
            for rank, label in rules.CARD_LABELS.items()
        ],
        calc_cards_given=any(typed.get(rank) for rank in rules.CARD_LABELS),
        language_next=reverse("match", args=[sheet.match.pk]),
    )
    return context


def _calculate(request, sheet):
    post = request.POST
    points = post.get("points", "").strip() or None
    counts = {rank: post.get(rank, "").strip() for rank in rules.CARD_VALUES}
    cards = {rank: count or 0 for rank, count in counts.items()} if any(counts.values()) else None
    try:
        result = rules.calculate(
            points=points, cards=cards, every_trick=values.ticked(post.get("every_trick"))
        )
    except values.Refusal as refusal:
        return {"error": explain(refusal), "match": sheet.match}
    mine = sheet.sides[0].side if sheet.seat else None
    side = mine or (post.get("side") if post.get("side") in values.SIDES else "a")
    # The deal's winner gets the pending extra games too, added in sight as on the keys
    # ("1+1=2"): the number entered is the number counted.
    pending = sheet.pending if result.games else 0
    return {
        "match": sheet.match,
        "result": result,
        "side": side,
        "label": sheet.labels[side],
        "other_label": sheet.labels[rules.other(side)],
        "deal": sheet.current,
        "pending": pending,
        "games": result.games + pending,
        "sum": f"{result.games}+{pending}={result.games + pending}" if pending else "",
        "may_enter": bool(sheet.side(side).keys),
    }
