"""A match (a rubber) and every change to it.

Every change is a method here. Each one locks the match row, applies
``rules``, writes one Event and bumps the match's version, all in one
transaction, so the HTML pages and the API share one set of rules and two
phones writing at once can never both win.
"""

import itertools
import secrets

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q, prefetch_related_objects
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .. import rules, values
from .base import SEAT_CHOICES, SIDE_CHOICES, NotAllowed, NotFound, clean_name, new_token
from .nights import Night
from .people import User
from .queries import MatchQuerySet
from .rows import Deal, Event, RevokeNote, Seat, SeatRequest, row_state

LATEST_BATCH = 8


class Match(models.Model):
    """One rubber: deals until a side has 4 games, or until someone ends it."""

    IN_PLAY, WON, ENDED = "in_play", "won", "ended"
    STATUSES = [(IN_PLAY, _("in play")), (WON, _("won")), (ENDED, _("ended"))]
    DIRECTIONS = [
        (values.COUNTERCLOCKWISE, _("counter-clockwise")),
        (values.CLOCKWISE, _("clockwise")),
    ]
    REDEAL_RULES = [
        (values.NEXT_DEALER, _("the next player deals")),
        (values.SAME_DEALER, _("the same dealer deals again (melar)")),
    ]
    SIDE_CHOICES = SIDE_CHOICES
    SEAT_CHOICES = SEAT_CHOICES

    night = models.ForeignKey(Night, on_delete=models.CASCADE, related_name="matches")
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="hosted"
    )
    # The rubber this one follows in its night: a finished rubber has at most one next.
    previous = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="following"
    )
    status = models.CharField(max_length=8, choices=STATUSES, default=IN_PLAY)
    target = models.PositiveSmallIntegerField(default=rules.TARGET)
    direction = models.CharField(max_length=16, choices=DIRECTIONS, default=values.COUNTERCLOCKWISE)
    first_dealer = models.CharField(max_length=2, choices=SEAT_CHOICES, default="a1")
    # The house rule after a redeal: the deal passes on, or the same dealer deals again.
    redeal_rule = models.CharField(max_length=16, choices=REDEAL_RULES, default=values.NEXT_DEALER)
    version = models.PositiveIntegerField(default=1)
    # The result, kept on the row so lists and tallies need no deals; _commit()
    # re-derives all of it from the deals after every change.
    games_a = models.PositiveSmallIntegerField(default=0)
    games_b = models.PositiveSmallIntegerField(default=0)
    winner = models.CharField(max_length=1, choices=SIDE_CHOICES, blank=True)
    marks = models.JSONField(default=list, blank=True)
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    ended_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)
    updated = models.DateTimeField(auto_now=True)

    objects = MatchQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "matches"
        ordering = ["-created", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["in_play", "won", "ended"]), name="match_status_valid"
            ),
        ]

    def __str__(self):
        return f"Match {self.pk}"

    # Reading -------------------------------------------------------------
    # Each reads the seats and deals through their managers, so a prefetch
    # (``MatchQuerySet.for_sheet``) serves them all without a query.

    def sheet(self) -> list[rules.Deal]:
        """The deals as rules.Deal values, in order."""
        return [deal.as_rule() for deal in self.deal_list()]

    def deal_list(self) -> list[Deal]:
        return sorted(self.deals.all(), key=lambda deal: deal.number)

    # The links belong to the night: they lead to its rubber in play.

    @property
    def join_token(self) -> str:
        return self.night.join_token

    @property
    def watch_token(self) -> str:
        return self.night.watch_token

    def seat_list(self) -> list[Seat]:
        return sorted(self.seats.all(), key=lambda seat: values.SEATS.index(seat.position))

    def seat_of(self, user) -> Seat | None:
        if not user.is_authenticated:
            return None
        return next((seat for seat in self.seats.all() if seat.user_id == user.pk), None)

    def is_host(self, user) -> bool:
        return user.is_authenticated and self.host_id == user.pk

    def is_member(self, user) -> bool:
        return self.seat_of(user) is not None

    def can_see(self, user) -> bool:
        return self.is_host(user) or self.is_member(user)

    def side_names(self) -> dict[str, str]:
        seats = self.seat_list()
        return {
            side: " & ".join(seat.name for seat in seats if seat.side == side)
            for side in values.SIDES
        }

    def names(self) -> dict[int, str]:
        """The name this match shows for each person who may act in it: the name of
        their seat, as the table typed it; the host without a seat, their own name."""
        names = {self.host_id: self.host.name}
        names.update((seat.user_id, seat.name) for seat in self.seats.all() if seat.user_id)
        return names

    @property
    def in_play(self) -> bool:
        return self.status == self.IN_PLAY

    def dealer(self, number: int) -> str:
        """Who deals deal ``number`` (from the deals read, under the house rule)."""
        return rules.dealer(number, self.first_dealer, self.direction, self._kept(number))

    def leader(self, number: int) -> str:
        return rules.leader(number, self.first_dealer, self.direction, self._kept(number))

    def _kept(self, number: int) -> int:
        if self.redeal_rule != values.SAME_DEALER:
            return 0  # no need to read the deals
        return rules.kept_deals(self.sheet(), number, self.redeal_rule)

    def latest_entry(self) -> Event | None:
        """The latest entry still standing, or None when a correction came after it.

        Undos step back one entry at a time: each undo cancels the newest entry
        not already undone.
        """
        undone = 0
        newest = self.events.filter(action__in=Event.SHEET_ACTIONS).order_by("-id")
        # Read back from the newest a few at a time: nearly always the first one answers.
        for start in itertools.count(0, LATEST_BATCH):
            batch = list(newest[start : start + LATEST_BATCH])
            for event in batch:
                if event.action == Event.CORRECTION:
                    return None
                if event.action == Event.UNDO:
                    undone += 1
                elif undone:
                    undone -= 1
                else:
                    return event
            if len(batch) < LATEST_BATCH:
                return None

    # Changing ------------------------------------------------------------

    def _lock(self) -> None:
        """Read this match again with its row locked, and its seats; call inside
        transaction.atomic(). Until the commit nobody else changes either."""
        self.refresh_from_db(
            from_queryset=Match.objects.select_for_update(of=("self",)).select_related(
                "host", "night"
            )
        )
        prefetch_related_objects([self], "seats")

    def _log(self, by, action, *, deal=None, before=None, after=None) -> None:
        Event.objects.create(
            match=self,
            by=by if by and by.is_authenticated else None,
            action=action,
            deal=deal,
            before=before,
            after=after,
        )

    def _commit(self, by, action, *, sheet=None, deal=None, before=None, after=None, fields=()):
        """Bump the version and write the event for one change; after a change to
        the deals, re-derive the result from ``sheet``, the deals as it left them."""
        if sheet is not None:
            outcome = rules.result(sheet, self.target)
            self.games_a, self.games_b = outcome.games["a"], outcome.games["b"]
            self.winner = outcome.winner or ""
            self.marks = list(outcome.marks)
            if self.status != self.ENDED:
                self.status = self.WON if outcome.winner else self.IN_PLAY
        self.version += 1
        self.save(
            update_fields=[
                "version",
                "games_a",
                "games_b",
                "winner",
                "marks",
                "status",
                "updated",
                *fields,
            ]
        )
        self._log(by, action, deal=deal, before=before, after=after)

    def _check_open(self) -> None:
        if self.status == self.ENDED:
            raise values.Conflict(
                _("This match was ended by %(name)s: nothing more can be entered."),
                name=self.names().get(self.ended_by_id) or gettext("someone"),
            )
        if self.status == self.WON:
            raise values.Conflict(
                _("This rubber is over: %(side)s won it."), side=self.side_names()[self.winner]
            )

    def _check_not_ended(self) -> None:
        """Undo and corrections may change a won rubber (it is in play again), never
        one that was ended."""
        if self.status == self.ENDED:
            self._check_open()

    def next_rubber_id(self) -> int | None:
        """The rubber that follows this one in its night, once started (one query; none
        while this one is in play, since a rubber in play has no next)."""
        if self.status == self.IN_PLAY:
            return None
        return Match.objects.filter(previous=self).values_list("pk", flat=True).first()

    def _check_not_closed(self, why) -> None:
        """A finished rubber whose next one has started is closed: the table has moved
        on, so nothing in it may change but what a correction keeps (its winner)."""
        following = self.next_rubber_id()
        if following is not None:
            raise values.Conflict(
                _("The next rubber has started, so this one is closed: %(why)s"),
                why=why,
                data={"next": following},
            )

    def _check_version(self, seen) -> None:
        """Refuse to act on a sheet that changed since the person saw version ``seen``,
        saying what changed; None acts on the sheet as it is now."""
        if seen is None:
            return
        seen = values.read_version(seen)
        if seen == self.version:
            return
        if seen > self.version:
            raise values.Conflict(
                _("This sheet has no version %(seen)s yet: reload it and try again."), seen=seen
            )
        names = self.names()
        # Every change after the start bumped the version once: the newest ones are these.
        newest = self.events.exclude(action=Event.START).order_by("-id")
        changes = list(newest[: min(3, self.version - seen)])
        said = [
            gettext("%(name)s %(action)s")
            % {
                "name": names.get(event.by_id) or gettext("someone"),
                "action": event.get_action_display(),
            }
            + (gettext(" in deal %(number)s") % {"number": event.deal} if event.deal else "")
            for event in reversed(changes)
        ]
        raise values.Conflict(
            _("The sheet changed since you saw it: %(changes)s. Nothing was done: look again."),
            changes="; ".join(said),
            data={"version": self.version},
        )

    def _check_join_token(self, token) -> None:
        if not self.night.join_token_is(token):
            raise NotAllowed(
                _("This join link is not valid any more: ask the host for the new one.")
            )

    def _require_member_or_host(self, user, what) -> None:
        if not self.can_see(user):
            raise NotAllowed(
                _("Only the host or a player seated in this match can %(what)s."), what=what
            )

    def record(self, by, *, deal, side, games, sweep=False) -> Deal:
        """Enter ``games`` in ``side``'s column of deal number ``deal``.

        A member enters their own side; the host either side. The entry must be
        for the current deal: an entry for a deal already over (a late phone)
        is refused rather than counted somewhere else.
        """
        side = values.check_side(side)
        number = values.read_deal(deal)
        with transaction.atomic():
            self._lock()
            seat = self.seat_of(by)
            if not self.is_host(by) and (seat is None or seat.side != side):
                if seat is None:
                    raise NotAllowed(
                        _("Only the host or a player seated in this match can enter games.")
                    )
                raise NotAllowed(_("You can only enter games in your own side's column."))
            self._check_not_closed(_("nothing more can be entered in it."))
            self._check_open()
            deals = self.deal_list()
            sheet = [d.as_rule() for d in deals]
            current = rules.current_deal(sheet)
            if number < current:
                # A deal already complete: say who has it (a double tap, a slow phone).
                rules.enter(
                    sheet[number - 1],
                    side,
                    games,
                    number=number,
                    pending=rules.pending_extra(sheet[: number - 1]),
                    names=self.side_names(),
                )
            rules.check_current(number, current)
            self._check_room(current)
            row = (
                deals[-1]
                if deals and deals[-1].number == current
                else Deal(match=self, number=current)
            )
            before = row.as_rule()
            after = rules.enter(
                before,
                side,
                games,
                number=current,
                pending=rules.pending_extra(sheet[: current - 1]),
                sweep=sweep,
                names=self.side_names(),
            )
            row.set_cells(after)
            if before.cell(side) is None:
                setattr(row, f"{side}_by", by)
            row.save()
            self._commit(
                by,
                Event.ENTRY,
                sheet=[*sheet[: current - 1], after],
                deal=current,
                before=row_state(before),
                after={**row_state(after), "side": side},
            )
        return row

    def _check_room(self, current) -> None:
        if current > rules.MAX_DEALS:
            raise values.Conflict(
                _(
                    "A rubber has %(most)s deals at most, and this one has had them all: "
                    "end the match and start the next rubber."
                ),
                most=rules.MAX_DEALS,
            )

    def redeal(self, by, *, deal, version=None) -> Deal:
        """Deal number ``deal`` was dealt again with nothing scored (a weak hand
        called, a misdeal): any member or the host, while neither cell is filled.

        The redeal is a row of its own, so the deal number moves on and the next
        dealer in the table's direction deals. Like an entry it must be for the
        current deal, and a second one for the same deal (a double tap, two phones)
        is refused as already recorded.
        """
        number = values.read_deal(deal)
        with transaction.atomic():
            self._lock()
            self._require_member_or_host(by, _("record a redeal"))
            self._check_not_closed(_("nothing more can be entered in it."))
            self._check_open()
            deals = self.deal_list()
            sheet = [d.as_rule() for d in deals]
            current = rules.current_deal(sheet)
            names = self.side_names()
            if number < current:
                # Say what that deal already holds (a double tap, a slow phone).
                rules.redeal(sheet[number - 1], number=number, names=names)
            rules.check_current(number, current)
            begun = deals[-1].as_rule() if deals and deals[-1].number == current else None
            redealt = rules.redeal(begun, number=current, names=names)
            self._check_room(current)
            self._check_version(version)
            row = Deal(match=self, number=current)
            row.set_cells(redealt)
            row.save()
            self._commit(
                by,
                Event.REDEAL,
                sheet=[*sheet, redealt],
                deal=current,
                after={"redeal": True},
            )
        return row

    def undo(self, by, *, deal=None, side=None, version=None) -> None:
        """Take back the latest entry: its author or the host, while nothing came after it.

        ``deal`` and ``side`` name the entry the person means to take back (the one
        their page offered), and ``version`` the sheet they saw: when another entry
        is the latest by now, or the sheet changed, nothing is undone.
        """
        with transaction.atomic():
            self._lock()
            if not self.can_see(by):
                raise NotAllowed(_("Only the host or a player seated in this match can undo."))
            self._check_not_ended()
            self._check_not_closed(_("its entries can no longer be undone."))
            self._check_version(version)
            entry = self.latest_entry()
            if entry is None:
                correction = self.events.filter(action=Event.CORRECTION).last()
                if correction:
                    raise values.Conflict(
                        _(
                            "The host corrected deal %(number)s after the latest entries: "
                            "entries before a correction can't be undone."
                        ),
                        number=correction.deal,
                    )
                raise values.Conflict(_("There is no entry to undo."))
            if entry.by_id != by.pk and not self.is_host(by):
                raise NotAllowed(
                    _("Only %(name)s, who made the latest entry, or the host can undo it."),
                    name=self.names().get(entry.by_id) or gettext("someone"),
                )
            meant = (
                None if deal in (None, "") else values.read_deal(deal),
                None if side in (None, "") else values.check_side(side),
            )
            redeal = entry.action == Event.REDEAL
            latest = (entry.deal, None if redeal else entry.after["side"])
            mismatch = any(
                given is not None and given != actual
                for given, actual in zip(meant, latest, strict=True)
            )
            if mismatch and redeal:
                raise values.Conflict(
                    _(
                        "The latest entry is now %(name)s's redeal of deal %(number)s, "
                        "not the one you meant: nothing was undone."
                    ),
                    name=self.names().get(entry.by_id) or gettext("someone"),
                    number=entry.deal,
                )
            if mismatch:
                raise values.Conflict(
                    _(
                        "The latest entry is now %(name)s's %(games)s for %(side)s in deal "
                        "%(number)s, not the one you meant: nothing was undone."
                    ),
                    name=self.names().get(entry.by_id) or gettext("someone"),
                    games=entry.after[entry.after["side"]],
                    side=self.side_names()[entry.after["side"]],
                    number=entry.deal,
                )
            deals = self.deal_list()
            row = next(deal for deal in deals if deal.number == entry.deal)
            current = row.as_rule()
            if redeal:
                restored = rules.Deal()  # a redeal always has its row to itself
            else:
                restored = rules.Deal(entry.before["a"], entry.before["b"], entry.before["sweep"])
                side = entry.after["side"]
            if restored.a is None and restored.b is None:
                row.delete()
                deals.remove(row)
            else:
                row.set_cells(restored)
                setattr(row, f"{side}_by", None)
                row.save()
            self._commit(
                by,
                Event.UNDO,
                sheet=[deal.as_rule() for deal in deals],
                deal=entry.deal,
                before=row_state(current),
                after=row_state(restored),
            )

    def correct(self, by, *, number, a, b, sweep=False, version=None) -> Deal:
        """The host sets both cells of a deal at once, under the same rules.

        Totals and the result are re-derived: a won rubber whose winner drops
        below 4 is in play again (unless the next rubber has started: then the
        winner must stay). A correction that would end the rubber before its last
        deal is refused.
        """
        number = values.read_deal(number)
        with transaction.atomic():
            self._lock()
            if not self.is_host(by):
                raise NotAllowed(_("Only the host can correct a deal."))
            self._check_not_ended()
            self._check_version(version)
            deals = self.deal_list()
            if not deals or number > deals[-1].number:
                raise values.InvalidInput(
                    _("There is no deal %(number)s to correct yet."), number=number
                )
            sheet = [d.as_rule() for d in deals]
            pending = rules.pending_extra(sheet[: number - 1])
            a = rules.check_games(a, pending)
            b = rules.check_games(b, pending)
            rules.check_sweep(max(a, b), sweep)
            corrected = rules.Deal(
                a, b, sweep=bool(a or b) and rules.is_sweep(max(a, b), sweep, pending)
            )
            sheet[number - 1] = corrected
            outcome = rules.check_sheet(sheet, self.target)
            if (outcome.winner or "") != self.winner:
                self._check_not_closed(_("a correction here may not change who won it."))
            row = deals[number - 1]
            before = row.as_rule()
            row.set_cells(corrected)
            for side in values.SIDES:
                if before.cell(side) != corrected.cell(side):
                    # The sheet names who put each number there: now the host.
                    setattr(row, f"{side}_by", by)
            row.save()
            self._commit(
                by,
                Event.CORRECTION,
                sheet=sheet,
                deal=number,
                before=row_state(before),
                after=row_state(corrected),
            )
        return row

    def end(self, by, *, version=None) -> None:
        """End a rubber that breaks up before the target: nobody wins it."""
        with transaction.atomic():
            self._lock()
            self._require_member_or_host(by, _("end it"))
            self._check_open()
            self._check_version(version)
            self.status = self.ENDED
            self.ended_by = by
            self.ended_at = timezone.now()
            self._commit(
                by,
                Event.END,
                after={"games": {"a": self.games_a, "b": self.games_b}},
                fields=("ended_by", "ended_at"),
            )

    def add_note(self, by, *, side, text, deal=None) -> RevokeNote:
        """Note a revoke beside the sheet. It never changes the tally."""
        side = values.check_side(side)
        text = " ".join(str(text or "").split())
        if "\x00" in text:  # PostgreSQL cannot store it
            raise values.InvalidInput(_("A note can't contain a NUL character."))
        if not text:
            raise values.InvalidInput(_("Say what happened: the note can't be empty."))
        if len(text) > 500:
            raise values.InvalidInput(_("A note is 500 characters at most."))
        with transaction.atomic():
            self._lock()
            self._require_member_or_host(by, _("note a revoke"))
            sheet = self.sheet()
            # Over, a rubber's last deal is the latest a revoke can have been in.
            current = rules.current_deal(sheet) if self.in_play else max(len(sheet), 1)
            number = current if deal in (None, "") else values.read_deal(deal, current)
            note = RevokeNote.objects.create(
                match=self, author=by, side=side, deal=number, text=text
            )
            self._commit(
                by,
                Event.NOTE,
                deal=number,
                after={"note": note.pk, "side": side, "text": text},
            )
        return note

    def withdraw_note(self, by, note_id) -> RevokeNote:
        """Withdraw a note: its author or the host. The note stays in the history."""
        with transaction.atomic():
            self._lock()
            note = (
                self.notes.filter(pk=note_id, withdrawn=False).first()
                if str(note_id).isdigit()
                else None
            )
            if note is None:
                raise NotFound(_("There is no such note in this match."))
            if note.author_id != by.pk and not self.is_host(by):
                raise NotAllowed(_("Only the note's author or the host can withdraw it."))
            note.withdrawn = True
            note.withdrawn_at = timezone.now()
            note.save(update_fields=["withdrawn", "withdrawn_at"])
            self._commit(
                by,
                Event.NOTE_WITHDRAWN,
                deal=note.deal,
                before={"note": note.pk, "side": note.side, "text": note.text},
            )
        return note

    def join(self, user, *, token, position, name=None) -> Seat:
        """Take a free seat with the join link's token; returns it, held by its taker.

        ``user`` None is a browser with no account: it gets a guest account named after
        the seat (or ``name``), unless it takes back by its name a seat the host freed
        from a guest, whom it is then again (their other browsers are signed out)."""
        self._check_join_token(token)
        position = values.check_seat(position)
        with transaction.atomic():
            self._lock()
            self._check_join_token(token)  # renewed meanwhile?
            self._check_seats_open()
            if user is not None and self.seat_of(user) is not None:
                raise values.Conflict(_("You already hold a seat in this match."))
            seat = self.seat_at(position)
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
        (one query)."""
        return list(self.seat_requests.filter(answered_at__isnull=True).select_related("user"))

    def free_seat(self, by, position) -> Seat:
        """The host frees a seat: its player loses it, and anyone with the join link may
        take it (its player, say, from a new browser). The seat keeps its name."""
        position = values.check_seat(position)
        with transaction.atomic():
            self._lock()
            if not self.is_host(by):
                raise NotAllowed(_("Only the host can free a seat."))
            self._check_seats_open()
            seat = self.seat_at(position)
            if seat.user_id is None:
                raise values.Conflict(_("%(name)s's seat is free already."), name=seat.name)
            before = {"seat": position, "name": seat.name, "user": seat.user_id}
            seat.user, seat.freed_from = None, seat.user
            seat.save(update_fields=["user", "freed_from"])
            self._commit(by, Event.SEAT_FREED, before=before, after={"seat": position})
        return seat

    def make_seat_link(self, by, position) -> Seat:
        """The host makes a link for one seat: whoever opens it takes that seat in one
        tap, in place of whoever holds it. A new link replaces the seat's old one; the
        history says a link was made, never the link itself."""
        position = values.check_seat(position)
        with transaction.atomic():
            self._lock()
            if not self.is_host(by):
                raise NotAllowed(_("Only the host can make a link for a seat."))
            self._check_seats_open()
            seat = self.seat_at(position)
            seat.link_token = new_token()
            seat.save(update_fields=["link_token"])
            self._commit(by, Event.SEAT_LINK, after={"seat": position, "name": seat.name})
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
        with transaction.atomic():
            self._lock()
            seat = self.seat_at(position)
            if user is not None and seat.user_id == user.pk:
                return seat
            if not self.seat_link_is(position, token):
                raise NotAllowed(
                    _("This link for a seat is not valid any more: ask the host for a new one.")
                )
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
        self._check_join_token(token)
        position = values.check_seat(position)
        with transaction.atomic():
            self._lock()
            self._check_join_token(token)  # renewed meanwhile?
            self._check_seats_open()
            if user is not None and self.seat_of(user) is not None:
                raise values.Conflict(_("You already hold a seat in this match."))
            seat = self.seat_at(position)
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

    def answer_seat_request(self, by, request_id, approve) -> SeatRequest:
        """A member of the table or the host approves a request for a seat (the asker
        takes it; whoever held it loses it) or turns it down. A browser that asked with
        no account of its own, for a guest's seat, is that guest again: the seat stays
        with the guest's account, which the asking browser signs in as (``seated``)."""
        with transaction.atomic():
            self._lock()
            self._require_member_or_host(by, _("answer a request for a seat"))
            self._check_seats_open()
            request = (
                self.seat_requests.select_related("user").filter(pk=request_id).first()
                if str(request_id).isdigit()
                else None
            )
            if request is None:
                raise NotFound(_("There is no such request for a seat in this match."))
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

    def renew_links(self, by) -> None:
        """New join and watch links for the night, and no seat's link left: every link
        handed out before stops working, whichever rubber it was made in."""
        with transaction.atomic():
            self._lock()
            if not self.is_host(by):
                raise NotAllowed(_("Only the host can renew the links."))
            night = self.night
            night.join_token, night.watch_token = new_token(), new_token()
            night.save(update_fields=["join_token", "watch_token"])
            Seat.objects.filter(match__night=night).exclude(link_token="").update(link_token="")
            self._commit(by, Event.RENEW)

    def rematch(self, by, seats=None, *, version=None) -> "Match":
        """The host starts the next rubber of the same night.

        ``seats`` maps each seat of the new match to the seat of this one whose
        player sits there (e.g. {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"}
        swaps partners); None keeps the same pairs. Everyone seated before is
        seated again, and the deal carries on round the table.
        """
        moves = dict(seats) if seats else {position: position for position in values.SEATS}
        if sorted(moves) != sorted(values.SEATS) or sorted(moves.values()) != sorted(values.SEATS):
            raise values.InvalidInput(
                _("Give each of the four seats exactly one of this match's players.")
            )
        with transaction.atomic():
            self._lock()
            if not self.is_host(by):
                raise NotAllowed(_("Only the host can start a rematch."))
            if self.status == self.IN_PLAY:
                raise values.Conflict(_("This rubber is still in play: finish it or end it first."))
            following = Match.objects.filter(previous=self).values_list("pk", flat=True).first()
            if following is not None:
                # At most one next rubber (the database holds to it too): a second tap,
                # or a second phone, is told where the table went.
                raise values.Conflict(
                    _("The next rubber has already started: rubber %(number)s."),
                    number=following,
                    data={"next": following},
                )
            self._check_version(version)
            old = {seat.position: seat for seat in self.seats.all()}
            following = Match.objects.create(
                host_id=self.host_id,
                night_id=self.night_id,
                previous=self,
                direction=self.direction,
                redeal_rule=self.redeal_rule,
                first_dealer=self.dealer(len(self.deal_list()) + 1),
            )
            Seat.objects.bulk_create(
                Seat(
                    match=following,
                    position=new,
                    name=old[was].name,
                    user_id=old[was].user_id,
                    freed_from_id=old[was].freed_from_id,
                )
                for new, was in moves.items()
            )
            following._log(by, Event.START, after={"rematch_of": self.pk, "seats": moves})
            self._commit(by, Event.REMATCH, after={"match": following.pk, "seats": moves})
        return following
