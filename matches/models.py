"""Nights, matches (rubbers), seats, deals, notes and the history of every change.

Every change to a match is a method here. Each one locks the match row, applies
``rules``, writes one Event and bumps the match's version, all in one
transaction, so the HTML pages and the API share one set of rules and two
phones writing at once can never both win.
"""

import secrets
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models, transaction
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    FilteredRelation,
    OuterRef,
    Q,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Cast, Concat, Greatest, Least, Left
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from . import rules


def new_token():
    return secrets.token_urlsafe(24)  # 192 bits


def explain(refusal):
    """A refusal's message in the active language.

    Templates from rules.py are plain English marked for translation; the ones
    here are lazy translations. Either way gettext gives the active language.
    """
    template = gettext(str(refusal.template))
    if not refusal.params:
        return template
    params = {
        key: gettext(str(value)) if isinstance(value, str | Promise) else value
        for key, value in refusal.params.items()
    }
    return template % params


class NotAllowed(rules.Refusal):
    """The person may not do this in this match."""

    status = 403


class NotFound(rules.Refusal):
    status = 404


class User(AbstractUser):
    """A player. Guests give only a display name and have no password until they set one."""

    display_name = models.CharField(_("name"), max_length=40, blank=True)
    is_guest = models.BooleanField(default=False)

    @property
    def name(self):
        return self.display_name or self.username

    def __str__(self):
        return self.name

    @classmethod
    def create_guest(cls, name):
        name = clean_name(name)
        user = cls(username=f"guest-{secrets.token_hex(8)}", display_name=name, is_guest=True)
        user.set_unusable_password()
        user.save()
        return user


def clean_name(name, what=None):
    what = what or _("Name")
    name = " ".join(str(name or "").split())
    if "\x00" in name:  # PostgreSQL cannot store it
        raise rules.InvalidInput(_("%(what)s can't contain a NUL character."), what=what)
    if not name:
        raise rules.InvalidInput(_("%(what)s can't be empty."), what=what)
    if len(name) > 40:
        raise rules.InvalidInput(_("%(what)s is too long: 40 characters at most."), what=what)
    return name


def clean_text(text, what, longest):
    """Optional free text on one line: spaces collapsed, blank allowed."""
    text = " ".join(str(text or "").split())
    if len(text) > longest:
        raise rules.InvalidInput(
            _("%(what)s is too long: %(longest)s characters at most."), what=what, longest=longest
        )
    return text


class NightQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Nights the user hosted or held a seat in."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(Q(host=user) | Q(matches__seats__user=user)).distinct()


class Night(models.Model):
    """The rubbers one table plays in one sitting."""

    name = models.CharField(max_length=80)
    place = models.CharField(max_length=80, blank=True)
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="nights"
    )
    created = models.DateTimeField(default=timezone.now)

    objects = NightQuerySet.as_manager()

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return self.name

    @property
    def label(self):
        return f"{self.name} · {self.place}" if self.place else self.name

    def describe(self, by, *, name, place=""):
        """The host names the night and says where it was; a blank name is the date."""
        if by.pk != self.host_id:
            raise NotAllowed(_("Only the night's host can rename it."))
        name = clean_text(name, _("The night's name"), 80)
        self.name = name or timezone.localtime(self.created).strftime("%Y-%m-%d")
        self.place = clean_text(place, _("The place"), 80)
        self.save(update_fields=["name", "place"])

    def rubbers(self):
        """The night's matches in the order they were played, with their seats
        (uses prefetched matches when there)."""
        matches = getattr(self, "_prefetched_objects_cache", {}).get("matches")
        if matches is None:
            matches = self.matches.prefetch_related("seats")
        return sorted(matches, key=lambda match: (match.created, match.pk))

    def tally(self):
        """Per pair and per player: rubbers, rubbers won, games, bandeiras,
        shutouts, chapéus and rubbers ended early.

        A player is their account where they sat with one, else the seat's
        name; a pair is its two players, whichever side they sat on. Only the
        results stored on each match are read, so the queries stay two however
        long the night.
        """
        players, pairs = {}, {}
        for match in self.rubbers():
            seats = match.seat_list()
            for side in rules.SIDES:
                sitting = [seat for seat in seats if seat.side == side]
                keys = []
                for seat in sitting:
                    key = ("user", seat.user_id) if seat.user_id else ("name", seat.name)
                    if key not in players:
                        players[key] = PlayerStanding(name=seat.name, user=seat.user_id)
                    players[key].count(match, side)
                    keys.append(key)
                pair = frozenset(keys)
                if pair not in pairs:
                    names = [players[key].name for key in keys]
                    pairs[pair] = PairStanding(name=" & ".join(names), players=names)
                pairs[pair].count(match, side)

        def order(standing):
            return (-standing.won, -standing.games, standing.name)

        return {
            "pairs": sorted(pairs.values(), key=order),
            "players": sorted(players.values(), key=order),
        }


@dataclass
class Standing:
    """One line of a night's tally."""

    name: str
    rubbers: int = 0
    won: int = 0
    games: int = 0
    bandeiras: int = 0
    shutouts: int = 0
    chapeus: int = 0
    ended_early: int = 0

    def count(self, match, side):
        self.rubbers += 1
        self.games += match.games_a if side == "a" else match.games_b
        if match.winner == side:
            self.won += 1
            self.bandeiras += "bandeira" in match.marks
            self.shutouts += "shutout" in match.marks
            self.chapeus += "chapeu" in match.marks
        if match.status == Match.ENDED:
            self.ended_early += 1


@dataclass
class PlayerStanding(Standing):
    user: int | None = None


@dataclass
class PairStanding(Standing):
    players: list = field(default_factory=list)


def seat_side():
    """A seat's side in SQL: the first letter of its position."""
    return Left("position", 1)


# Joins a pair's two player keys; seat names never hold a newline.
PAIR_JOIN = "\n"


def player_key(seat):
    """The player in ``seat`` (a relation's name) in SQL: "u<id>" for an account,
    "n<name>" for a seat without one."""
    return Case(
        When(
            **{f"{seat}__user__isnull": False},
            then=Concat(Value("u"), Cast(f"{seat}__user_id", models.CharField())),
        ),
        default=Concat(Value("n"), f"{seat}__name"),
        output_field=models.CharField(),
    )


def _seated(user_id):
    return Seat.objects.filter(match=OuterRef("pk"), user_id=user_id).annotate(side=seat_side())


def _seat_at(position):
    # A join per seat rather than a subquery: PostgreSQL's planner then sees a cheap
    # plan (a subquery repeated in every expression looked dear enough to start JIT).
    return FilteredRelation("seats", condition=Q(seats__position=position))


@dataclass
class PlayerRecord:
    """One player's line in the standings."""

    name: str
    user: int | None
    rubbers: int
    won: int
    finished: int
    ended_early: int
    games: int

    @property
    def rate(self):
        """Rubbers won out of those finished, 0.0 to 1.0."""
        return self.won / self.finished if self.finished else 0.0


@dataclass
class Meeting:
    """Two pairs' head-to-head: rubbers they played against each other and who won."""

    pairs: tuple
    rubbers: int
    won: tuple
    ended_early: int


@dataclass
class Standings:
    players: list
    head_to_head: list


class MatchQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Matches the user hosts or holds a seat in."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(Q(host=user) | Q(seats__user=user)).distinct()

    # History and standings ------------------------------------------------

    RESULTS = ("won", "lost", "ended", "in_play")

    def played_by(self, user):
        """Every rubber the person hosted or played, newest first, each with
        ``seat`` and ``side``: where they sat, or None where they only hosted.

        The ids come from a UNION of two indexed lookups (their seats, their
        hosting), so the cost follows the person's own rubbers, not the table:
        an OR across the join would scan every match.
        """
        if not user.is_authenticated:
            return self.none()
        mine = (
            Seat.objects.filter(user=user)
            .values("match_id")
            .union(Match.objects.filter(host=user).order_by().values("pk"))
        )
        seat = Seat.objects.filter(match=OuterRef("pk"), user=user).values("position")[:1]
        return (
            self.filter(pk__in=mine)
            .annotate(seat=Subquery(seat, output_field=models.CharField()))
            .annotate(side=Left("seat", 1))
            .order_by("-created", "-id")
        )

    def with_partner(self, partner_id):
        """Rubbers of ``played_by`` where this account sat on the person's side."""
        return self.filter(
            Exists(
                _seated(partner_id).filter(side=OuterRef("side")).exclude(position=OuterRef("seat"))
            )
        )

    def against(self, opponent_id):
        """Rubbers of ``played_by`` where this account sat on the other side."""
        return self.filter(
            Exists(_seated(opponent_id).exclude(side=OuterRef("side"))), side__isnull=False
        )

    def with_result(self, result):
        """Rubbers of ``played_by`` by how they went for the person: won, lost,
        ended (before the target) or in_play. A host who sat out won or lost none."""
        if result == "won":
            return self.filter(status=Match.WON, winner=F("side"))
        if result == "lost":
            return self.filter(status=Match.WON, side__isnull=False).exclude(winner=F("side"))
        if result == "ended":
            return self.filter(status=Match.ENDED)
        if result == "in_play":
            return self.filter(status=Match.IN_PLAY)
        raise rules.InvalidInput(_("The result must be won, lost, ended or in_play."))

    def between(self, since=None, until=None):
        """Rubbers started on these days (in the current time zone), both included."""
        rubbers = self
        if since:
            rubbers = rubbers.filter(created__date__gte=since)
        if until:
            rubbers = rubbers.filter(created__date__lte=until)
        return rubbers

    def filtered(
        self,
        *,
        status=None,
        night=None,
        partner=None,
        opponent=None,
        result=None,
        since=None,
        until=None,
    ):
        """Rubbers of ``played_by`` that pass every filter given (history, standings, API)."""
        rubbers = self
        if status:
            rubbers = rubbers.filter(status=status)
        if night:
            rubbers = rubbers.filter(night_id=night)
        if partner:
            rubbers = rubbers.with_partner(partner)
        if opponent:
            rubbers = rubbers.against(opponent)
        if result:
            rubbers = rubbers.with_result(result)
        return rubbers.between(since, until)

    def standings(self):
        """Per player and pair against pair, over these rubbers: two queries,
        both aggregations in SQL over the results stored on each match.

        A player is their account where they sat with one, else the seat's
        name. The win rate counts rubbers won out of those finished (won by
        either side): a rubber ended early or still in play has no loser.
        """
        rubbers = self.order_by().values("pk")
        seats = (
            Seat.objects.filter(match__in=rubbers)
            .annotate(side=seat_side(), anonymous=Case(When(user__isnull=True, then="name")))
            .values("user", "anonymous", "user__display_name", "user__username")
            .annotate(
                rubbers=Count("pk"),
                won=Count("pk", filter=Q(match__winner=F("side"))),
                finished=Count("pk", filter=Q(match__status=Match.WON)),
                ended_early=Count("pk", filter=Q(match__status=Match.ENDED)),
                games=Sum(Case(When(side="a", then="match__games_a"), default="match__games_b")),
            )
        )
        players, names = [], {}
        for row in seats:
            name = row["anonymous"] or row["user__display_name"] or row["user__username"]
            key = f"u{row['user']}" if row["user"] else f"n{row['anonymous']}"
            names[key] = name
            players.append(
                PlayerRecord(
                    name=name,
                    user=row["user"],
                    rubbers=row["rubbers"],
                    won=row["won"],
                    finished=row["finished"],
                    ended_early=row["ended_early"],
                    games=row["games"] or 0,
                )
            )
        players.sort(key=lambda p: (-p.won, -p.rate, -p.rubbers, p.name.casefold()))

        def pair(first, second):
            return Concat(Least(first, second), Value(PAIR_JOIN), Greatest(first, second))

        meetings = (
            Match.objects.filter(pk__in=rubbers)
            .annotate(**{f"seat_{position}": _seat_at(position) for position in rules.SEATS})
            .annotate(**{position: player_key(f"seat_{position}") for position in rules.SEATS})
            .annotate(pair_a=pair("a1", "a2"), pair_b=pair("b1", "b2"))
            .annotate(one=Least("pair_a", "pair_b"), two=Greatest("pair_a", "pair_b"))
            .values("one", "two")
            .annotate(
                rubbers=Count("pk"),
                one_won=Count(
                    "pk", filter=Q(winner="a", pair_a=F("one")) | Q(winner="b", pair_b=F("one"))
                ),
                two_won=Count(
                    "pk", filter=Q(winner="a", pair_a=F("two")) | Q(winner="b", pair_b=F("two"))
                ),
                ended_early=Count("pk", filter=Q(status=Match.ENDED)),
            )
            .order_by()
        )

        def pair_name(key):
            players = [names.get(player, player[1:]) for player in key.split(PAIR_JOIN)]
            return " & ".join(sorted(players, key=str.casefold))

        head_to_head = []
        for row in meetings:
            # Named alphabetically, each pair's names and the two pairs alike.
            sides = sorted(
                [(pair_name(row["one"]), row["one_won"]), (pair_name(row["two"]), row["two_won"])],
                key=lambda side: side[0].casefold(),
            )
            head_to_head.append(
                Meeting(
                    pairs=(sides[0][0], sides[1][0]),
                    rubbers=row["rubbers"],
                    won=(sides[0][1], sides[1][1]),
                    ended_early=row["ended_early"],
                )
            )
        head_to_head.sort(key=lambda m: (-m.rubbers, m.pairs))
        return Standings(players=players, head_to_head=head_to_head)

    def start(
        self,
        host,
        seats,
        *,
        host_seat=None,
        direction=rules.COUNTERCLOCKWISE,
        first_dealer="a1",
        night=None,
        night_name="",
        place="",
    ):
        """Open a match: four seat names, the host's seat (or none), who deals first.

        Without ``night`` it opens a new night, named ``night_name`` or else the date.
        """
        if direction not in rules.DIRECTIONS:
            raise rules.InvalidInput(_("The direction must be counterclockwise or clockwise."))
        if first_dealer not in rules.SEATS:
            raise rules.InvalidInput(_("The first dealer must be one of the four seats."))
        if host_seat not in (None, *rules.SEATS):
            raise rules.InvalidInput(_("The host's seat must be one of the four seats, or none."))
        names = {}
        for position in rules.SEATS:
            names[position] = clean_name(seats.get(position), what=_("Each seat's name"))
        if night is not None and night.host_id != host.pk:
            raise NotAllowed(_("Only the night's host can add a match to it."))
        night_name = clean_text(night_name, _("The night's name"), 80)
        place = clean_text(place, _("The place"), 80)
        with transaction.atomic():
            if night is None:
                night = Night.objects.create(
                    host=host,
                    name=night_name or timezone.localdate().strftime("%Y-%m-%d"),
                    place=place,
                )
            match = self.create(
                host=host, night=night, direction=direction, first_dealer=first_dealer
            )
            Seat.objects.bulk_create(
                Seat(
                    match=match,
                    position=position,
                    name=names[position],
                    user=host if position == host_seat else None,
                )
                for position in rules.SEATS
            )
            match._log(host, Event.START, after={"seats": names, "host_seat": host_seat})
        return match


class Match(models.Model):
    """One rubber: deals until a side has 4 games, or until someone ends it."""

    IN_PLAY, WON, ENDED = "in_play", "won", "ended"
    STATUSES = [(IN_PLAY, _("in play")), (WON, _("won")), (ENDED, _("ended"))]
    DIRECTIONS = [
        (rules.COUNTERCLOCKWISE, _("counter-clockwise")),
        (rules.CLOCKWISE, _("clockwise")),
    ]
    SIDE_CHOICES = [("a", "a"), ("b", "b")]
    SEAT_CHOICES = [(seat, seat) for seat in rules.SEATS]

    night = models.ForeignKey(Night, on_delete=models.CASCADE, related_name="matches")
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="hosted"
    )
    status = models.CharField(max_length=8, choices=STATUSES, default=IN_PLAY)
    target = models.PositiveSmallIntegerField(default=rules.TARGET)
    direction = models.CharField(max_length=16, choices=DIRECTIONS, default=rules.COUNTERCLOCKWISE)
    first_dealer = models.CharField(max_length=2, choices=SEAT_CHOICES, default="a1")
    version = models.PositiveIntegerField(default=1)
    join_token = models.CharField(max_length=43, unique=True, default=new_token)
    watch_token = models.CharField(max_length=43, unique=True, default=new_token)
    # The result, kept on the row so lists and tallies need no deals; _settle()
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

    def sheet(self):
        """The deals as rules.Deal values, in order (uses prefetched deals when there)."""
        return [deal.as_rule() for deal in self.deal_list()]

    def deal_list(self):
        deals = getattr(self, "_prefetched_objects_cache", {}).get("deals")
        if deals is None:
            deals = self.deals.all()
        return sorted(deals, key=lambda deal: deal.number)

    def seat_list(self):
        return sorted(self.seats.all(), key=lambda seat: rules.SEATS.index(seat.position))

    def seat_of(self, user):
        if not user.is_authenticated:
            return None
        return next((seat for seat in self.seats.all() if seat.user_id == user.pk), None)

    def is_host(self, user):
        return user.is_authenticated and self.host_id == user.pk

    def is_member(self, user):
        return self.seat_of(user) is not None

    def can_see(self, user):
        return self.is_host(user) or self.is_member(user)

    def side_names(self):
        seats = self.seat_list()
        return {
            side: " & ".join(seat.name for seat in seats if seat.side == side)
            for side in rules.SIDES
        }

    @property
    def in_play(self):
        return self.status == self.IN_PLAY

    # Changing ------------------------------------------------------------

    def _locked(self):
        """This match re-read with its row locked, with its seats and deals; call
        inside transaction.atomic().

        While the row is locked nobody else changes the seats or the deals, so
        these are read once here and kept current by the change itself (see
        ``_keep_deals``), and ``_adopt`` hands them back to the caller's instance.
        """
        return (
            Match.objects.select_for_update()
            .prefetch_related(
                models.Prefetch("seats", queryset=Seat.objects.select_related("user")),
                "deals",
            )
            .get(pk=self.pk)
        )

    def _keep_deals(self, deals):
        """The locked match's deals as the change left them, in place of the ones read."""
        # Stored the way prefetch_related stores them, so deals.all() and
        # deal_list() read these without a query.
        queryset = self.deals.all()
        queryset._result_cache = sorted(deals, key=lambda deal: deal.number)
        queryset._prefetch_done = True
        self._prefetched_objects_cache["deals"] = queryset

    def _adopt(self, locked):
        """Take the locked instance's fields after a change, instead of reading them again.

        Like refresh_from_db(), it drops what this instance had prefetched; the
        seats and deals the change read are kept aside for ``hold_sheet()``.
        """
        for column in self._meta.concrete_fields:
            setattr(self, column.attname, getattr(locked, column.attname))
        self._state.fields_cache.update(locked._state.fields_cache)
        self._prefetched_objects_cache = {}
        self.__dict__.pop("active_notes", None)
        self._changed_sheet = dict(locked._prefetched_objects_cache)

    def hold_sheet(self):
        """Right after a change: hold the seats and deals that change read and left.

        They are current as of its commit (the row was locked from the read to
        the commit), so the answer to the change shows them without reading
        them again. Notes are not among them.
        """
        self._prefetched_objects_cache.update(self.__dict__.pop("_changed_sheet", {}))
        return self

    def _log(self, by, action, *, deal=None, before=None, after=None):
        Event.objects.create(
            match=self,
            by=by if by and by.is_authenticated else None,
            action=action,
            deal=deal,
            before=before,
            after=after,
        )

    def _commit(self, by, action, *, deal=None, before=None, after=None, fields=()):
        """Re-derive the result, bump the version and write the event for one change."""
        self._settle()
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

    def _settle(self):
        outcome = rules.result(self.sheet(), self.target)
        self.games_a, self.games_b = outcome.games["a"], outcome.games["b"]
        self.winner = outcome.winner or ""
        self.marks = list(outcome.marks)
        if self.status != self.ENDED:
            self.status = self.WON if outcome.winner else self.IN_PLAY
        return outcome

    def _check_open(self):
        if self.status == self.ENDED:
            raise rules.Conflict(
                _("This match was ended by %(name)s: nothing more can be entered."),
                name=self.ended_by.name if self.ended_by else gettext("someone"),
            )
        if self.status == self.WON:
            raise rules.Conflict(
                _("This rubber is over: %(side)s won it."), side=self.side_names()[self.winner]
            )

    def _require_member_or_host(self, user, what):
        if not (self.is_host(user) or self.is_member(user)):
            raise NotAllowed(
                _("Only the host or a player seated in this match can %(what)s."), what=what
            )

    def record(self, by, *, deal, side, games, sweep=False):
        """Enter ``games`` in ``side``'s column of deal number ``deal``.

        A member enters their own side; the host either side. The entry must be
        for the current deal: an entry for a deal already over (a late phone)
        is refused rather than counted somewhere else.
        """
        if side not in rules.SIDES:
            raise rules.InvalidInput(_("The side must be a or b."))
        number = rules.whole_number(deal, _("The deal"), 1)
        with transaction.atomic():
            match = self._locked()
            seat = match.seat_of(by)
            if not match.is_host(by) and (seat is None or seat.side != side):
                if seat is None:
                    raise NotAllowed(
                        _("Only the host or a player seated in this match can enter games.")
                    )
                raise NotAllowed(_("You can only enter games in your own side's column."))
            match._check_open()
            deals = match.deal_list()
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
                    names=match.side_names(),
                )
            if number != current:
                raise rules.Conflict(
                    _("Deal %(number)s is not the current deal: the sheet is on deal %(current)s."),
                    number=number,
                    current=current,
                )
            row = (
                deals[-1]
                if deals and deals[-1].number == current
                else Deal(match=match, number=current)
            )
            before = row.as_rule()
            after = rules.enter(
                before,
                side,
                games,
                number=current,
                pending=rules.pending_extra(sheet[: current - 1]),
                sweep=sweep,
                names=match.side_names(),
            )
            row.set_cells(after)
            if before.cell(side) is None:
                setattr(row, f"{side}_by", by)
            row.save()
            if row.number > len(deals):
                match._keep_deals([*deals, row])
            match._commit(
                by,
                Event.ENTRY,
                deal=current,
                before=row_state(before),
                after={**row_state(after), "side": side},
            )
        self._adopt(match)
        return row

    def latest_entry(self):
        """The latest entry still standing, or None when a correction came after it.

        Undos step back one entry at a time: each undo cancels the newest entry
        not already undone.
        """
        undone = 0
        for event in self.events.filter(action__in=Event.SHEET_ACTIONS).order_by("-id"):
            if event.action == Event.CORRECTION:
                return None
            if event.action == Event.UNDO:
                undone += 1
            elif undone:
                undone -= 1
            else:
                return event
        return None

    def undo(self, by):
        """Take back the latest entry: its author or the host, while nothing came after it."""
        with transaction.atomic():
            match = self._locked()
            if not (match.is_host(by) or match.is_member(by)):
                raise NotAllowed(_("Only the host or a player seated in this match can undo."))
            if match.status == self.ENDED:
                match._check_open()
            entry = match.latest_entry()
            if entry is None:
                correction = match.events.filter(action=Event.CORRECTION).last()
                if correction:
                    raise rules.Conflict(
                        _(
                            "The host corrected deal %(number)s after the latest entries: "
                            "entries before a correction can't be undone."
                        ),
                        number=correction.deal,
                    )
                raise rules.Conflict(_("There is no entry to undo."))
            if entry.by_id != by.pk and not match.is_host(by):
                raise NotAllowed(
                    _("Only %(name)s, who made the latest entry, or the host can undo it."),
                    name=entry.by.name if entry.by else gettext("someone"),
                )
            deals = match.deal_list()
            row = next(deal for deal in deals if deal.number == entry.deal)
            current = row.as_rule()
            restored = rules.Deal(entry.before["a"], entry.before["b"], entry.before["sweep"])
            side = entry.after["side"]
            if restored.a is None and restored.b is None:
                row.delete()
                match._keep_deals([deal for deal in deals if deal is not row])
            else:
                row.set_cells(restored)
                setattr(row, f"{side}_by", None)
                row.save()
            match._commit(
                by,
                Event.UNDO,
                deal=entry.deal,
                before=row_state(current),
                after=row_state(restored),
            )
        self._adopt(match)

    def correct(self, by, *, number, a, b, sweep=False):
        """The host sets both cells of a deal at once, under the same rules.

        Totals and the result are re-derived: a won rubber whose winner drops
        below 4 is in play again. A correction that would end the rubber before
        its last deal is refused.
        """
        number = rules.whole_number(number, _("The deal"), 1)
        with transaction.atomic():
            match = self._locked()
            if not match.is_host(by):
                raise NotAllowed(_("Only the host can correct a deal."))
            if match.status == self.ENDED:
                match._check_open()
            deals = match.deal_list()
            if not deals or number > deals[-1].number:
                raise rules.InvalidInput(
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
            rules.check_sheet(sheet, match.target)
            row = deals[number - 1]
            before = row.as_rule()
            row.set_cells(corrected)
            for side in rules.SIDES:
                if before.cell(side) != corrected.cell(side):
                    # The sheet names who put each number there: now the host.
                    setattr(row, f"{side}_by", by)
            row.save()
            match._commit(
                by,
                Event.CORRECTION,
                deal=number,
                before=row_state(before),
                after=row_state(corrected),
            )
        self._adopt(match)
        return row

    def end(self, by):
        """End a rubber that breaks up before the target: nobody wins it."""
        with transaction.atomic():
            match = self._locked()
            match._require_member_or_host(by, _("end it"))
            match._check_open()
            match.status = self.ENDED
            match.ended_by = by
            match.ended_at = timezone.now()
            match._commit(
                by,
                Event.END,
                after={"games": {"a": match.games_a, "b": match.games_b}},
                fields=("ended_by", "ended_at"),
            )
        self._adopt(match)

    def add_note(self, by, *, side, text, deal=None):
        """Note a revoke beside the sheet. It never changes the tally."""
        if side not in rules.SIDES:
            raise rules.InvalidInput(_("The side must be a or b."))
        text = " ".join(str(text or "").split())
        if "\x00" in text:  # PostgreSQL cannot store it
            raise rules.InvalidInput(_("A note can't contain a NUL character."))
        if not text:
            raise rules.InvalidInput(_("Say what happened: the note can't be empty."))
        if len(text) > 500:
            raise rules.InvalidInput(_("A note is 500 characters at most."))
        with transaction.atomic():
            match = self._locked()
            match._require_member_or_host(by, _("note a revoke"))
            current = rules.current_deal(match.sheet())
            number = (
                current
                if deal in (None, "")
                else rules.whole_number(deal, _("The deal"), 1, current)
            )
            note = RevokeNote.objects.create(
                match=match, author=by, side=side, deal=number, text=text
            )
            match._commit(
                by, Event.NOTE, deal=number, after={"note": note.pk, "side": side, "text": text}
            )
        self._adopt(match)
        return note

    def withdraw_note(self, by, note_id):
        """Withdraw a note: its author or the host. The note stays in the history."""
        with transaction.atomic():
            match = self._locked()
            note = (
                match.notes.filter(pk=note_id, withdrawn=False).first()
                if str(note_id).isdigit()
                else None
            )
            if note is None:
                raise NotFound(_("There is no such note in this match."))
            if note.author_id != by.pk and not match.is_host(by):
                raise NotAllowed(_("Only the note's author or the host can withdraw it."))
            note.withdrawn = True
            note.withdrawn_at = timezone.now()
            note.save(update_fields=["withdrawn", "withdrawn_at"])
            match._commit(
                by,
                Event.NOTE_WITHDRAWN,
                deal=note.deal,
                before={"note": note.pk, "side": note.side, "text": note.text},
            )
        self._adopt(match)
        return note

    def join(self, user, *, token, position, name=None):
        """Take a free seat with the join link's token."""
        # Bytes: compare_digest refuses str with non-ASCII characters (a mangled link).
        if not secrets.compare_digest(str(token or "").encode(), self.join_token.encode()):
            raise NotAllowed(
                _("This join link is not valid any more: ask the host for the new one.")
            )
        if position not in rules.SEATS:
            raise rules.InvalidInput(_("Pick one of the four seats."))
        with transaction.atomic():
            match = self._locked()
            if not secrets.compare_digest(str(token).encode(), match.join_token.encode()):
                raise NotAllowed(
                    _("This join link is not valid any more: ask the host for the new one.")
                )
            if match.status != self.IN_PLAY:
                match._check_open()
            if match.seat_of(user) is not None:
                raise rules.Conflict(_("You already hold a seat in this match."))
            seat = next(seat for seat in match.seats.all() if seat.position == position)
            if seat.user_id is not None:
                raise rules.Conflict(_("That seat is taken by %(name)s."), name=seat.name)
            before = seat.name
            seat.user = user
            if name:
                seat.name = clean_name(name)
            seat.save(update_fields=["user", "name"])
            match._commit(
                user,
                Event.JOIN,
                after={"seat": position, "name": seat.name},
                before={"name": before},
            )
        self._adopt(match)
        return seat

    def renew_links(self, by):
        """New join and watch tokens: the old links stop working."""
        with transaction.atomic():
            match = self._locked()
            if not match.is_host(by):
                raise NotAllowed(_("Only the host can renew the links."))
            match.join_token = new_token()
            match.watch_token = new_token()
            match._commit(by, Event.RENEW, fields=("join_token", "watch_token"))
        self._adopt(match)

    def rematch(self, by, seats=None):
        """The host starts the next rubber of the same night.

        ``seats`` maps each seat of the new match to the seat of this one whose
        player sits there (e.g. {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"}
        swaps partners); None keeps the same pairs. Everyone seated before is
        seated again, and the deal carries on round the table.
        """
        moves = dict(seats) if seats else {position: position for position in rules.SEATS}
        if sorted(moves) != sorted(rules.SEATS) or sorted(moves.values()) != sorted(rules.SEATS):
            raise rules.InvalidInput(
                _("Give each of the four seats exactly one of this match's players.")
            )
        with transaction.atomic():
            match = self._locked()
            if not match.is_host(by):
                raise NotAllowed(_("Only the host can start a rematch."))
            if match.status == self.IN_PLAY:
                raise rules.Conflict(_("This rubber is still in play: finish it or end it first."))
            old = {seat.position: seat for seat in match.seats.all()}
            following = Match.objects.create(
                host=match.host,
                night=match.night,
                direction=match.direction,
                first_dealer=match.dealer(len(match.sheet()) + 1),
            )
            Seat.objects.bulk_create(
                Seat(match=following, position=new, name=old[was].name, user=old[was].user)
                for new, was in moves.items()
            )
            following._log(by, Event.START, after={"rematch_of": match.pk, "seats": moves})
            match._commit(by, Event.REMATCH, after={"match": following.pk, "seats": moves})
        self._adopt(match)
        return following

    # Where the table is --------------------------------------------------

    def dealer(self, number):
        return rules.dealer(number, self.first_dealer, self.direction)

    def leader(self, number):
        return rules.leader(number, self.first_dealer, self.direction)


def row_state(deal):
    return {"a": deal.a, "b": deal.b, "sweep": deal.sweep}


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    position = models.CharField(max_length=2, choices=Match.SEAT_CHOICES)
    name = models.CharField(max_length=40)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="one_seat_per_position"),
            models.UniqueConstraint(
                fields=["match", "user"], condition=Q(user__isnull=False), name="one_seat_per_user"
            ),
        ]

    def __str__(self):
        return f"{self.position} {self.name}"

    @property
    def side(self):
        return rules.side_of(self.position)


class Deal(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveSmallIntegerField()
    a = models.PositiveSmallIntegerField(null=True, blank=True)
    b = models.PositiveSmallIntegerField(null=True, blank=True)
    sweep = models.BooleanField(default=False)
    a_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    b_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="one_row_per_deal"),
            models.CheckConstraint(
                condition=Q(a__gte=0) | Q(a__isnull=True), name="deal_a_not_negative"
            ),
            models.CheckConstraint(
                condition=Q(b__gte=0) | Q(b__isnull=True), name="deal_b_not_negative"
            ),
            models.CheckConstraint(condition=~(Q(a__gt=0) & Q(b__gt=0)), name="deal_one_side_wins"),
        ]

    def __str__(self):
        return f"Deal {self.number}: {self.a}–{self.b}"

    def as_rule(self):
        return rules.Deal(self.a, self.b, self.sweep)

    def set_cells(self, deal):
        self.a, self.b, self.sweep = deal.a, deal.b, deal.sweep

    @property
    def complete(self):
        return self.as_rule().complete

    @property
    def tie(self):
        return self.as_rule().tie


class Event(models.Model):
    """The append-only history of a match: who did what, when, with old and new values."""

    START, JOIN, ENTRY, UNDO, CORRECTION = "start", "join", "entry", "undo", "correction"
    END, NOTE, NOTE_WITHDRAWN, RENEW = "end", "note", "note_withdrawn", "renew_links"
    REMATCH = "rematch"
    ACTIONS = [
        (START, _("started the match")),
        (JOIN, _("took a seat")),
        (ENTRY, _("entered games")),
        (UNDO, _("undid an entry")),
        (CORRECTION, _("corrected a deal")),
        (END, _("ended the match")),
        (NOTE, _("noted a revoke")),
        (NOTE_WITHDRAWN, _("withdrew a note")),
        (RENEW, _("renewed the links")),
        (REMATCH, _("started a rematch")),
    ]
    SHEET_ACTIONS = (ENTRY, UNDO, CORRECTION)

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="events")
    at = models.DateTimeField(default=timezone.now)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=16, choices=ACTIONS)
    deal = models.PositiveSmallIntegerField(null=True, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["match", "action"])]

    def __str__(self):
        return f"{self.get_action_display()} ({self.at:%Y-%m-%d %H:%M})"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise RuntimeError("The history is append-only: events are never changed.")
        super().save(*args, **kwargs)


class RevokeNote(models.Model):
    """A revoke noted beside the sheet: some tables dock two games by hand, off the sheet."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    side = models.CharField(max_length=1, choices=Match.SIDE_CHOICES)
    deal = models.PositiveSmallIntegerField()
    text = models.CharField(max_length=500)
    withdrawn = models.BooleanField(default=False)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self):
        return self.text
