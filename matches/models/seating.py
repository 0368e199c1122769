"""Seats: taking one by the night's join link, the host freeing one or handing out a
link for one, asking for one back and a member's answer. A part of ``Match``
(``match.py``): each change is one method that reads the match again under its row
lock (``_changing``), writes one Event and bumps the version, in one transaction.

A browser with no account (``user`` None) takes a seat as the person it belongs to: a
guest account made for it, or the guest it was before (``_guest_again``)."""

import secrets

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .. import values
from .base import NotAllowed, NotFound, clean_name, new_token, no_such_seat_request, seat_link_gone
from .people import User
from .rows import Event, Seat, SeatRequest


class Seating:
    """The changes to a rubber's seats (mixed into ``Match``)."""

    def join(self, user, *, token, position, name=None) -> Seat:
        """Take a free seat with the join link's token; returns it, held by its taker.

        ``user`` None is a browser with no account: it gets a guest account named after
        the seat (or ``name``), unless it takes back by its name a seat the host freed
        from a guest, whom it is then again (their other browsers are signed out)."""
        position = values.check_seat(position)
        with self._changing():
            seat = self._seat_by_join_link(user, token, position)
            if seat.user_id is not None:
                raise values.Conflict(_("That seat is taken by %(name)s."), name=seat.name)
            before = seat.name
            if name:
                seat.name = clean_name(name)
            if user is None:
                user = self._guest_again(seat.freed_from, seat.name == before)
                user = user or User.create_guest(seat.name)
            seat.user, seat.freed_from = user, None
            seat.save(update_fields=["user", "name", "freed_from"])
            taken = {"seat": position, "name": seat.name}
            self._close_requests_of(user)
            self._commit(user, Event.JOIN, before={"name": before}, after=taken)
        return seat

    def _seat_by_join_link(self, user, token, position) -> Seat:
        """The seat at ``position``, in a change of the match's own (``_changing``), for
        someone holding the night's join link (checked under the lock: renewed
        meanwhile?) who has no seat in it yet, while the rubber is the one in play."""
        self._check_join_token(token)
        self._check_seats_open()
        if user is not None and self.seat_of(user) is not None:
            raise values.Conflict(_("You already hold a seat in this match."))
        return self.seat_at(position)

    # Seats: getting back in from another browser -----------------------------------

    def seat_at(self, position) -> Seat:
        """The seat at ``position`` (one of the four), from the seats already read."""
        return next(seat for seat in self.seats.all() if seat.position == position)

    def _check_seats_open(self) -> None:
        """Seats change in the rubber in play: once it is over, the next rubber is
        where the table sits (the night's links lead there)."""
        if self.status != self.IN_PLAY:
            self._check_not_closed(_("take your seat in the rubber in play."))
            self._check_open()

    @staticmethod
    def _guest_again(holder, same_seat=True):
        """The guest account a browser with no account of its own is again when it gets
        a guest's seat back (by the host's link, a member's yes, or by tapping the name of
        a seat freed from them): the same person, once in the history and the tallies.
        Their other browsers are signed out. None when it is nobody's to be again."""
        if holder is None or not holder.is_guest or not same_seat:
            return None
        holder.end_sessions()
        return holder

    def _close_requests_of(self, user) -> None:
        """Someone who has a seat again asks for none: their open request (if any) is
        closed unanswered, so that nobody is asked about it."""
        self.seat_requests.filter(user=user, answered_at__isnull=True).update(
            answered_at=timezone.now()
        )

    def open_seat_requests(self) -> list[SeatRequest]:
        """The requests for a seat nobody has answered yet, oldest first, with their askers
        (one query, unless read with the sheet: ``for_sheet``)."""
        kept = getattr(self, "open_requests", None)
        if kept is not None:
            return kept
        return list(self.seat_requests.filter(answered_at__isnull=True).select_related("user"))

    def _seat_for_host(self, by, position, what) -> Seat:
        """The seat at ``position``, in a change of the match's own (``_changing``), for
        the host to change (``what`` they do, for the refusal to anyone else) in the
        rubber in play."""
        position = values.check_seat(position)
        self._require_host(by, what)
        self._check_seats_open()
        return self.seat_at(position)

    def free_seat(self, by, position) -> Seat:
        """The host frees a seat: its player loses it, and anyone with the join link may
        take it (its player, say, from a new browser). The seat keeps its name."""
        with self._changing():
            seat = self._seat_for_host(by, position, _("free a seat"))
            if seat.user_id is None:
                raise values.Conflict(_("%(name)s's seat is free already."), name=seat.name)
            before = {"seat": seat.position, "name": seat.name, "user": seat.user_id}
            seat.user, seat.freed_from = None, seat.user
            seat.save(update_fields=["user", "freed_from"])
            self._commit(by, Event.SEAT_FREED, before=before, after={"seat": seat.position})
        return seat

    def make_seat_link(self, by, position) -> Seat:
        """The host makes a link for one seat: whoever opens it takes that seat in one
        tap, in place of whoever holds it. A new link replaces the seat's old one; the
        history says a link was made, never the link itself."""
        with self._changing():
            seat = self._seat_for_host(by, position, _("make a link for a seat"))
            seat.link_token = new_token()
            seat.save(update_fields=["link_token"])
            self._commit(by, Event.SEAT_LINK, after={"seat": seat.position, "name": seat.name})
        return seat

    def seat_link_is(self, position, token) -> bool:
        link = self.seat_at(position).link_token
        return bool(link) and secrets.compare_digest(str(token or "").encode(), link.encode())

    def take_seat_by_link(self, user, position, token) -> Seat:
        """Take the seat the host's link is for, in place of whoever holds it; the link
        is spent. Someone who holds that seat already keeps it (a second tap). Returns
        the seat, held by its taker: ``user``, or for ``user`` None (a browser with no
        account) the guest who held it, whom that browser is again, else a new guest."""
        position = values.check_seat(position)
        with self._changing():
            seat = self.seat_at(position)
            if user is not None and seat.user_id == user.pk:
                return seat
            if not self.seat_link_is(position, token):
                raise NotAllowed(seat_link_gone())
            self._check_seats_open()
            held = self.seat_of(user) if user is not None else None
            if held is not None:
                raise values.Conflict(
                    _("You already hold %(name)s's seat in this match."), name=held.name
                )
            before = {"name": seat.name, "user": seat.user_id}
            if user is None:
                user = self._guest_again(seat.user or seat.freed_from)
                user = user or User.create_guest(seat.name)
            seat.user, seat.freed_from, seat.link_token = user, None, ""
            seat.save(update_fields=["user", "freed_from", "link_token"])
            self._close_requests_of(user)
            taken = {"seat": position, "name": seat.name, "by_link": True}
            self._commit(user, Event.JOIN, before=before, after=taken)
        return seat

    def ask_for_seat(self, user, *, token, position) -> SeatRequest:
        """Ask for a held seat back (another browser, a cleared phone), with the join
        link's token: anyone who has the link may ask, and a member of the table or the
        host approves or turns it down. A free seat is taken with ``join`` instead; a
        person asks for one seat at a time, and asking again for it changes nothing.
        ``user`` None is a browser with no account: the request gets a guest account of
        its own (``request.user``), and once approved that browser is the seat's guest."""
        position = values.check_seat(position)
        with self._changing():
            seat = self._seat_by_join_link(user, token, position)
            if seat.user_id is None:
                raise values.Conflict(
                    _("%(name)s's seat is free: take it, no need to ask."), name=seat.name
                )
            newcomer = user is None
            if newcomer:
                user = User.create_guest(seat.name)
            asked = self.seat_requests.filter(user=user, answered_at__isnull=True).first()
            if asked is not None and asked.position == position:
                return asked
            if asked is not None:
                raise values.Conflict(
                    _("You asked for %(name)s's seat already: wait for the answer."),
                    name=self.seat_at(asked.position).name,
                )
            request = SeatRequest.objects.create(
                match=self, position=position, user=user, newcomer=newcomer
            )
            self._commit(
                user,
                Event.SEAT_ASKED,
                after={
                    "seat": position,
                    "name": seat.name,
                    "asker": user.name,
                    "request": request.pk,
                },
            )
        return request

    def answer_seat_request(self, by, request_id, approve, *, version=None) -> SeatRequest:
        """A member of the table or the host approves a request for a seat (the asker
        takes it; whoever held it loses it) or turns it down. A browser that asked with
        no account of its own, for a guest's seat, is that guest again: the seat stays
        with the guest's account, which the asking browser signs in as (``seated``).
        ``version`` is the sheet the answer was given on: two people approving two asks
        for one seat at once, the second is told what changed and nothing is done."""
        with self._changing():
            self._require_member_or_host(by, _("answer a request for a seat"))
            self._check_seats_open()
            self._check_version(version)
            request = (
                self.seat_requests.select_related("user").filter(pk=request_id).first()
                if str(request_id).isdigit()
                else None
            )
            if request is None:
                raise NotFound(no_such_seat_request())
            seat = self.seat_at(request.position)
            if request.answered_at is not None:
                raise values.Conflict(
                    _("%(asker)s's request for %(name)s's seat was answered already."),
                    asker=request.user.name,
                    name=seat.name,
                )
            if approve and self.seat_of(request.user) is not None:
                raise values.Conflict(
                    _("%(asker)s holds a seat in this match already."), asker=request.user.name
                )
            request.approved = bool(approve)
            request.answered_by = by
            request.answered_at = timezone.now()
            said = {
                "seat": seat.position,
                "name": seat.name,
                "asker": request.user.name,
                "request": request.pk,
            }
            if not approve:
                request.save(update_fields=["approved", "answered_by", "answered_at"])
                self._commit(by, Event.SEAT_REFUSED, after=said)
                return request
            before = {"seat": seat.position, "name": seat.name, "user": seat.user_id}
            again = self._guest_again(seat.user) if request.newcomer else None
            request.seated = again or request.user
            request.save(update_fields=["approved", "answered_by", "answered_at", "seated"])
            seat.user, seat.freed_from = request.seated, None
            seat.save(update_fields=["user", "freed_from"])
            self._commit(by, Event.SEAT_GIVEN, before=before, after={**said, "user": seat.user_id})
        return request
