"""A match (a rubber): what it is, how it reads, and the changes of the night.

Every change is a method of ``Match``: here the night's (renewing its links, the
rematch), in ``playing.py`` the sheet's, in ``seating.py`` the seats'. Each one reads
the match again with its row locked (``_changing``), checks what it reads there against
``rules``, writes one Event and bumps the match's version, all in one transaction, so
the HTML pages and the API share one set of rules and two phones writing at once can
never both win; the change is announced (``signals.sheet_changed``) for the sheet's open
streams. A change made to its rows by any other way (the admin, a shell) is counted the
same (``recount``).
"""

import contextlib
from contextvars import ContextVar

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q, prefetch_related_objects
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .. import places, rules, signals, values
from .base import (
    SEAT_CHOICES,
    SIDE_CHOICES,
    NotAllowed,
    clean_seat_name,
    join_link_gone,
    new_token,
    no_rematch_in_a_tournament,
)
from .nights import Night
from .playing import Playing
from .queries import AS_READ_FOR_SHEET, MatchQuerySet, deal_rows, sheet_rows
from .rows import Deal, Event, Seat, SheetReading
from .seating import Seating

# The matches whose own methods are changing them, in this thread: the rows they save
# are theirs to count (``Match.recount`` counts those saved any other way).
changing = ContextVar("changing", default=frozenset())


class Match(Playing, Seating, models.Model):
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
    # The house rule on 120 points: a bandeira whether or not every trick was taken.
    bandeira_at_120 = models.BooleanField(default=False)
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
    # The side awarded the rubber because the other did not turn up (a walkover in a
    # club's series, recorded by its organiser): the rubber is ended, nobody won it here.
    walkover = models.CharField(max_length=1, choices=SIDE_CHOICES, blank=True, default="")
    created = models.DateTimeField(default=timezone.now)
    updated = models.DateTimeField(auto_now=True)

    objects = MatchQuerySet.as_manager()

    # Whether this match holds all its sheet shows, as the change under way left it
    # (``_lock``): an entry's and a redeal's answer. Its rows, or only those the change
    # checks and what the sheet showed at the version it locked (``shown_before``, as
    # the change that made that version kept it: ``SheetReading``, ``sheet.played``).
    whole_sheet = False
    shown_before = None
    logged = None  # the event the latest change wrote

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
        rows = vars(self).get("deal_rows")  # read with the sheet (for_sheet)
        return sorted(self.deals.all() if rows is None else rows, key=lambda deal: deal.number)

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
        """The latest entry still standing, or None when a correction (or a change by
        another way than the sheet) came after it.

        Undos step back one entry at a time: each undo cancels the newest entry not
        already undone. A rubber's sheet changes are a few hundred at most: one read.
        """
        undone = 0
        events = getattr(self, "sheet_events", None)  # read with the sheet (for_sheet)
        if events is None:
            events = self.events.filter(action__in=Event.SHEET_ACTIONS).order_by("-id")
        for event in events:
            if event.action in (Event.CORRECTION, Event.EDITED):
                return None
            if event.action == Event.UNDO:
                undone += 1
            elif undone:
                undone -= 1
            else:
                return event
        return None

    # Changing ------------------------------------------------------------

    @contextlib.contextmanager
    def _changing(self, *, deals=False, sheet=False):
        """One change of this match's own: a transaction in which the match is read again
        with its row locked, its seats (and with ``deals`` its deals, with ``sheet`` its
        deals and what else its sheet shows to those who may act, as kept at that
        version or else read), so that what the change checks is what the database
        holds, and nobody else changes any of it until the commit."""
        was = changing.set(changing.get() | {self.pk})
        try:
            with transaction.atomic():
                self._lock(deals=deals, sheet=sheet)
                yield
        finally:
            changing.reset(was)
        if not self.whole_sheet:
            # The rows read under the lock are the change's to have changed: read afresh
            # when next asked for.
            self.refresh_from_db(fields=["seats", *(["deals"] if deals else [])])

    def _lock(self, *, deals=False, sheet=False) -> None:
        for name in AS_READ_FOR_SHEET:  # read with the sheet, and not read again here
            self.__dict__.pop(name, None)
        # Not "following": refresh_from_db keeps what comes with the row's own foreign
        # keys, not a reverse one; the sheet's rows below read it with its seats.
        self.refresh_from_db(
            from_queryset=Match.objects.select_for_update(of=("self",)).select_related(
                "host", "night", *places.related()
            )
        )
        # An entry and a redeal keep this reading up as they change the sheet
        # (``_wrote``, ``_log``), and answer from it; any other change reads it again.
        self.whole_sheet = sheet
        self.shown_before = SheetReading.objects.at(self.pk, self.version) if sheet else None
        if self.shown_before is not None:
            rows = ["seats", deal_rows()]  # what the change checks; the rest is as kept
        elif sheet:
            rows = sheet_rows(acting=True)
        else:
            rows = ["seats", *(["deals"] if deals else [])]
        prefetch_related_objects([self], *rows)

    def _wrote(self, row: Deal) -> None:
        """``row``, the deal an entry or a redeal just saved, in the deals read under the
        lock (``_changing(sheet=True)``), where a new one is not yet."""
        if row not in self.deal_rows:
            self.deal_rows.append(row)

    def read_again(self) -> "Match":
        """This match read for its sheet as its latest change left it, as one who may act
        on it sees it, in that change's transaction: the reading an entry or a redeal
        kept up, or else read afresh."""
        if self.whole_sheet:
            return self
        return Match.objects.for_sheet(acting=True).get(pk=self.pk)

    def recount(self, by=None) -> None:
        """After its seats, deals or notes were changed by another way than its own
        methods (the admin, a shell, a command): its result derived again from its deals
        as stored, its version bumped, the change in its history, its streams told."""
        with self._changing(deals=True):
            self._commit(by, Event.EDITED, sheet=self.sheet())

    def _log(self, by, action, *, deal=None, before=None, after=None) -> None:
        event = Event.objects.create(
            match=self,
            by=by if by and by.is_authenticated else None,
            action=action,
            deal=deal,
            before=before,
            after=after,
        )
        self.logged = event
        if action in Event.SHEET_ACTIONS and "sheet_events" in vars(self):
            self.sheet_events.insert(0, event)  # newest first, as read

    def _commit(self, by, action, *, sheet=None, deal=None, before=None, after=None, fields=()):
        """Bump the version and write the event for one change; after a change to
        the deals, re-derive the result from ``sheet``, the deals as it left them."""
        won_before = self.winner if self.status == self.WON else ""
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
        if (self.winner if self.status == self.WON else "") != won_before:
            signals.result_changed.send(sender=Match, match=self)
        if self.status != self.IN_PLAY and action in Event.FINISHING:
            # What comes next at this table may start with it (a club's series, say).
            signals.rubber_finished.send(sender=Match, match=self, by=by)
        signals.sheet_changed.send(sender=Match, match=self, seats=action in Event.SEATING_ACTIONS)

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
            raise NotAllowed(join_link_gone())

    def _require_host(self, user, what) -> None:
        if not self.is_host(user):
            raise NotAllowed(_("Only the host can %(what)s."), what=what)

    def _require_member_or_host(self, user, what) -> None:
        if not self.can_see(user):
            raise NotAllowed(
                _("Only the host or a player seated in this match can %(what)s."), what=what
            )

    def renew_links(self, by) -> None:
        """New join and watch links for the night, and no seat's link left: every link
        handed out before stops working, whichever rubber it was made in."""
        with self._changing():
            self._require_host(by, _("renew the links"))
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
        seated again, and the deal carries on round the table. Never at a
        tournament's table: what is played there next is the tournament's to say.
        """
        moves = dict(seats) if seats else {position: position for position in values.SEATS}
        if sorted(moves) != sorted(values.SEATS) or sorted(moves.values()) != sorted(values.SEATS):
            raise values.InvalidInput(
                _("Give each of the four seats exactly one of this match's players.")
            )
        with self._changing(deals=True):
            self._require_host(by, _("start a rematch"))
            if self.night.tournament_table:
                raise values.Conflict(no_rematch_in_a_tournament())
            return self._play_again(by, moves, version)

    def next_moca(self, by) -> "Match":
        """The next rubber (moca) of a club's series at this table, started by its
        tournament: the same pairs in the same seats, the deal passing on."""
        with self._changing(deals=True):
            self._require_host(by, _("start a rematch"))
            return self._play_again(by, {position: position for position in values.SEATS})

    def _play_again(self, by, moves, version=None) -> "Match":
        """The next rubber with this one's players, seated by ``moves``; under the lock."""
        self._check_finished_and_last()
        self._check_version(version)
        old = {seat.position: seat for seat in self.seats.all()}
        return self._start_next(
            by,
            first_dealer=self.dealer(len(self.deal_list()) + 1),
            seats=[
                Seat(
                    position=new,
                    name=old[was].name,
                    user_id=old[was].user_id,
                    freed_from_id=old[was].freed_from_id,
                    player_id=old[was].player_id,
                )
                for new, was in moves.items()
            ],
            start={"rematch_of": self.pk, "seats": moves},
            rematch={"seats": moves},
        )

    def hand_over(self, by, names, players=None) -> "Match":
        """The table plays on with other players: the next rubber of the night, its
        seats named ``names`` ({"a1": "Ana", ...}) and nobody in them yet, the first deal
        a1's (a club's next pairs at this table), each seat its roster's player where
        ``players`` names one. The phones of this rubber follow it as after a rematch;
        its players take their seats by the night's join link."""
        names = {position: clean_seat_name(names.get(position)) for position in values.SEATS}
        players = players or {}
        with self._changing():
            self._require_host(by, _("start a rematch"))
            self._check_finished_and_last()
            return self._start_next(
                by,
                first_dealer="a1",
                seats=[
                    Seat(position=position, name=names[position], player_id=players.get(position))
                    for position in values.SEATS
                ],
                start={"after": self.pk, "names": names},
                rematch={"names": names},
            )

    def _check_finished_and_last(self) -> None:
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

    def _start_next(self, by, *, first_dealer, seats, start, rematch) -> "Match":
        """The next rubber of the night after this one, with ``seats`` (unsaved Seat
        rows): its start and this rubber's rematch in the history, under this lock."""
        following = Match.objects.create(
            host_id=self.host_id,
            night_id=self.night_id,
            previous=self,
            direction=self.direction,
            redeal_rule=self.redeal_rule,
            bandeira_at_120=self.bandeira_at_120,
            first_dealer=first_dealer,
        )
        for seat in seats:
            seat.match = following
        Seat.objects.bulk_create(seats)
        following._log(by, Event.START, after=start)
        signals.rubber_started.send(sender=Match, match=following, seats=seats)
        self._commit(by, Event.REMATCH, after={"match": following.pk, **rematch})
        return following
