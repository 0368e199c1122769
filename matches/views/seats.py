"""Seats: joining by the night's link, asking for a seat back, the host's link for one
seat, the invite panel with the night's links, freeing a seat and answering a request.

A browser with no account of its own takes a seat as the person the seat belongs to:
the model makes the guest account (named after the seat, or the name typed) or finds the
guest it was before, and the browser signs in as them (``_seated``).
"""

from functools import lru_cache

import segno
from django.contrib import messages
from django.contrib.auth import login
from django.db import transaction
from django.http import Http404, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from .. import limits, links, places, posted, values
from ..forms import SIDE_LABELS, JoinForm
from ..models import Match, SeatRequest, explain, join_link_gone, seat_link_gone
from .answers import bad_form, go, not_found, refused, too_many
from .answers import posted as posted_data
from .playing import act
from .sheet import match_for


def _seated(request, take):
    """``take(person)`` for the one asking: the signed-in person, or None for a browser
    with no account, which then signs in as whoever ``take`` says now holds the seat
    (or asks for it): a new guest, or the guest it was before."""
    anonymous = not request.user.is_authenticated
    person = take(None if anonymous else request.user)
    if anonymous:
        login(request, person)
    return person


# The night's join link ---------------------------------------------------------------


@limits.guarded(too_many)
@require_http_methods(["GET", "POST"])
@limits.limit_posts(limits.GuestThrottle, too_many, anonymous_only=True)
@posted.only(form=JoinForm, refuse=bad_form)
@transaction.atomic  # a seat taken and the browser signed in are one
def join(request, token):
    """The night's join link, at its rubber in play: take a free seat in one tap on its
    name (or with a name of one's own); when the seat is held by one's old browser, ask
    for it back. A browser with no account signs in as the seat's player: a new guest
    named after the seat (or the name typed), or the guest it was before."""
    match = Match.objects.of_night(join_token=token).one_sheet()
    if match is None:
        return not_found(request, join_link_gone())
    _back_in(request, match)
    if match.seat_of(request.user) is not None:
        return go(request, reverse("match", args=[match.pk]))
    free = [seat for seat in match.seat_list() if seat.user_id is None]
    form = JoinForm(posted_data(request), free_seats=free)
    status = None
    if request.method == "POST" and form.is_valid():
        try:
            _seated(
                request,
                lambda person: (
                    match.join(
                        person,
                        token=token,
                        position=form.cleaned_data["seat"],
                        name=form.cleaned_data["name"] or None,
                    ).user
                ),
            )
        except values.Refusal as refusal:
            # Taken meanwhile, say: the page again as it is now, saying so, with what
            # they typed still there.
            form.add_error(None, explain(refusal))
            status = refusal.status
            match = Match.objects.for_sheet().get(pk=match.pk)
            form.offer([seat for seat in match.seat_list() if seat.user_id is None])
        else:
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
    place = places.place_of(match)
    if place is not None:  # the seats were named by the draw: no host typed them
        form.fields["name"].help_text = _("Left empty: the seat's name.")
    asked = None
    if request.user.is_authenticated:
        # Their latest request for a seat: waiting for an answer, or turned down.
        asked = match.seat_requests.filter(user=request.user).order_by("-id").first()
        if asked is not None and asked.approved:
            asked = None
    if asked is not None and asked.answered_at is None and request.htmx.target == "seat-request":
        # Its card asking again, still unanswered: nothing new to swap in under a finger.
        return HttpResponse(status=204)
    context = {
        "form": form,
        "match": match,
        "names": match.side_names(),
        # Each seat with its side's name: (seat, "Side A").
        "free": [(seat, SIDE_LABELS[seat.side]) for seat in seats if seat.user_id is None],
        "held": [(seat, SIDE_LABELS[seat.side]) for seat in seats if seat.user_id is not None],
        "asked": asked,
        "asked_name": match.seat_at(asked.position).name if asked else "",
        "tournament": place,
    }
    if status is None:
        status = 400 if form.errors else 200
    return render(request, "matches/join.html", context, status=status)


@limits.guarded(too_many)
@limits.limit_posts(limits.GuestThrottle, too_many, anonymous_only=True)
@posted.only("seat", refuse=bad_form)
@transaction.atomic  # a seat taken and the browser signed in are one
def ask_for_seat(request, token):
    """Ask for a held seat back ("this is my seat"), in the night's rubber in play; a
    member or the host answers on the sheet. A browser with no account gets a guest
    account of its own for the request."""
    match = Match.objects.of_night(join_token=token).one_sheet()
    if match is None:
        return not_found(request, join_link_gone())
    if request.method != "POST":
        # Only after the token: a wrong one shows nothing, as every link's page does.
        return HttpResponseNotAllowed(["POST"])
    position = request.POST.get("seat")
    try:
        _seated(
            request,
            lambda person: (
                match.ask_for_seat(person, token=token, position=values.check_seat(position)).user
            ),
        )
    except values.Refusal as refusal:
        return refused(request, refusal, reverse("join", args=[token]))
    messages.success(
        request,
        _("Asked: a player at the table or the host will see it on the sheet and let you in."),
    )
    return go(request, reverse("join", args=[token]))


@limits.guarded(too_many)
@require_http_methods(["GET", "POST"])
@limits.limit_posts(limits.GuestThrottle, too_many, anonymous_only=True)
@posted.only(refuse=bad_form)
@transaction.atomic  # a seat taken and the browser signed in are one
def seat_link(request, pk, position, token):
    """The host's link for one seat: the page says whose seat it is, and one tap takes
    it, in place of whoever holds it. Opening it changes nothing (a messaging app
    opens links to preview them); the tap does, and spends the link."""
    match = Match.objects.one_sheet(pk=pk)
    if match is None or not match.seat_link_is(position, token):
        holds = match is not None and match.seat_of(request.user)
        if holds and holds.position == position:
            return redirect("match", pk=pk)  # the link was theirs, and spent
        return not_found(request, seat_link_gone())
    seat = match.seat_at(position)
    if request.method == "POST":
        try:
            _seated(request, lambda person: match.take_seat_by_link(person, position, token).user)
        except values.Refusal as refusal:
            return refused(request, refusal, reverse("seat_link", args=[pk, position, token]))
        return go(request, reverse("match", args=[pk]))
    context = {"match": match, "seat": seat, "side": SIDE_LABELS[seat.side], "token": token}
    return render(request, "matches/join.html", {**context, "names": match.side_names()})


# The host's links and the invite ------------------------------------------------------


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
    match = match_for(request, pk, sheet=True)
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
        "match_id": match.pk,
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


# The host's changes of a seat, by what the path names: each a method of the match.
SEAT_CHANGES = {"free": "free_seat", "link": "make_seat_link"}


@require_POST
@posted.only(refuse=bad_form)
@transaction.atomic  # the change and the panel it answers with are one
def change_seat(request, pk, position, change):
    """The host frees a seat or makes a link for it (``change``): the invite panel
    again, as it is now (in place for htmx); a refusal is its message."""
    match = match_for(request, pk)
    try:
        getattr(match, SEAT_CHANGES[change])(request.user, position)
    except values.Refusal as refusal:
        return refused(request, refusal, reverse("invite", args=[pk]))
    if not request.htmx:
        return redirect("invite", pk=pk)
    return _invite(request, Match.objects.for_sheet().get(pk=pk))


@require_POST
@posted.only("approve", "version", refuse=bad_form)
def answer_seat_request(request, pk, request_id):
    """Approve (the asker takes the seat) or turn down a request for a seat, from the sheet."""
    answer = request.POST.get("approve")  # yes or no, read by the API's own rule
    return act(
        request,
        pk,
        lambda match: match.answer_seat_request(
            request.user,
            request_id,
            values.ticked(answer),
            version=request.POST.get("version") or None,
        ),
        notice=lambda sheet: (
            _("The seat is theirs now.") if values.ticked(answer) else _("Turned down.")
        ),
    )


@require_POST
@posted.only(refuse=bad_form)
def renew(request, pk):
    return act(
        request,
        pk,
        lambda match: match.renew_links(request.user),
        notice=_("New links made: the old ones no longer work."),
    )
