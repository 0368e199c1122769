"""A club's tournament, and every change to it.

Every rubber is an ordinary match (``matches``): a series is rubbers on one table
between two pairs, each a sheet like any other, and each table is a night of its own,
whose links lead to the rubber in play there. What is kept here is only what the sheets
cannot say: who meets whom, on which table, the walkovers and the deciding rubbers
(negras). Everything else (mocas, who won a series, the standings, whether the
tournament is over) is read from the rubbers (``progress.py``), so a corrected rubber
corrects them too.

Each change is a method that locks the tournament's row first, then does its work in
one transaction, and bumps the tournament's version: the projector and the organiser's
page follow it (``signals.topic_changed``).
"""

import secrets

from django.conf import settings
from django.db import models, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches import rosters, signals, values
from matches.models import (
    Match,
    Night,
    NotAllowed,
    NotFound,
    clean_seat_name,
    clean_text,
    new_token,
)

from .progress import progress
from .rows import Negra, Pair, Round, Rubber, Series, Table, seat_names, seat_players

# Where a change to a tournament is announced: its projector and organiser's page listen
# here, and to each of its tables' nights.
TOPIC = "tournament"

MOST_PAIRS, FEWEST_PAIRS = 64, 2
MOST_TABLES = 32
MOST_MOCAS = 9
KNOCKOUT_SIZES = (2, 4, 8)


def topic(tournament_id):
    return (TOPIC, tournament_id)


def tournament_link_gone():
    return _("This tournament's link is not valid any more: ask the organiser for it again.")


def clean_tournament_name(name) -> str:
    return clean_text(name, _("The tournament's name"), longest=80, required=True)


def read_pairs(pairs) -> list[tuple[str, str]]:
    """The pairs as given: two names each, as for seats; 2..64 pairs, no name twice."""
    if not isinstance(pairs, list | tuple):
        raise values.InvalidInput(_("Give the pairs as a list of two names each."))
    if not FEWEST_PAIRS <= len(pairs) <= MOST_PAIRS:
        raise values.InvalidInput(
            _("A tournament has from %(fewest)s to %(most)s pairs; %(count)s were given."),
            fewest=FEWEST_PAIRS,
            most=MOST_PAIRS,
            count=len(pairs),
        )
    read, seen = [], set()
    for number, pair in enumerate(pairs, 1):
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise values.InvalidInput(
                _("Pair %(number)s: give two players' names, as in “Ana & Rui”."), number=number
            )
        names = tuple(clean_seat_name(name) for name in pair)
        for name in names:
            if name.casefold() in seen:
                raise values.InvalidInput(
                    _("%(name)s is in two pairs: give each player once."), name=name
                )
            seen.add(name.casefold())
        read.append(names)
    return read


def split_pair(line) -> list[str]:
    """A pair as a person types it on one line: "Ana & Rui", "Ana e Rui", "Ana, Rui"."""
    for separator in ("&", " e ", " E ", " and ", ",", "/", "+"):
        if separator in line:
            return [name.strip() for name in line.split(separator, 1)]
    return [line]


class TournamentQuerySet(models.QuerySet):
    def organised_by(self, user):
        if not user.is_authenticated:
            return self.none()
        return self.filter(organiser=user)

    def open(self, organiser, *, name, pairs, format="round_robin", rounds=None,
             knockout_size=None, tables=1, mocas_to_win=3,
             bandeira_at_120=False, club=None) -> "Tournament":  # fmt: skip
        """A new tournament, registering: its pairs, and its tables (a night each, hosted
        by the organiser, who hosts every rubber; each night plays the tournament's house
        rule on 120 points, so every rubber there does). A club's (``club``, an id): its
        pairs are the players of the club's roster (``rosters``)."""
        name = clean_tournament_name(name)
        bandeira_at_120 = values.ticked(bandeira_at_120)
        pairs = read_pairs(pairs)
        if format not in dict(Tournament.FORMATS):
            raise values.InvalidInput(
                _("The format must be round_robin, knockout or round_robin_knockout.")
            )
        tables = _whole(tables, _("Tables"), 1, MOST_TABLES)
        mocas_to_win = _whole(mocas_to_win, _("Mocas to win"), 1, MOST_MOCAS)
        if format == Tournament.KNOCKOUT or rounds in (None, ""):
            rounds = None
        else:
            full = len(pairs) - 1 if len(pairs) % 2 == 0 else len(pairs)
            rounds = _whole(rounds, _("Rounds"), 1, full)
        if format == Tournament.ROUND_ROBIN_KNOCKOUT:
            if knockout_size not in KNOCKOUT_SIZES:
                raise values.InvalidInput(_("The knockout takes the top 2, 4 or 8 pairs."))
            if knockout_size > len(pairs):
                raise values.InvalidInput(
                    _("The knockout takes the top %(size)s pairs, and there are %(count)s."),
                    size=knockout_size,
                    count=len(pairs),
                )
        else:
            knockout_size = None
        with transaction.atomic():
            tournament = self.create(
                name=name,
                organiser=organiser,
                format=format,
                rounds_asked=rounds,
                knockout_size=knockout_size,
                table_count=tables,
                mocas_to_win=mocas_to_win,
                bandeira_at_120=bandeira_at_120,
            )
            tournament._register(pairs, club)
            for number in range(1, tables + 1):
                night = Night.objects.create(
                    host=organiser,
                    name=f"{name} · {number}"[:80],
                    place="",
                    tournament_table=True,
                    bandeira_at_120=bandeira_at_120,
                )
                Table.objects.create(tournament=tournament, number=number, night=night)
        return tournament


def in_the_way(template, now, **params) -> values.Conflict:
    """The refusal to go on while tables still play (``now``, a progress): it names
    each one and its rubber, and gives the API their ids."""
    return values.Conflict(
        template,
        in_the_way="; ".join(item.text for item in now.in_the_way),
        data={
            "in_the_way": [
                {"table": item.table, "match": item.match, "series": item.series}
                for item in now.in_the_way
            ]
        },
        **params,
    )


def _whole(value, what, least, most) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        value = None
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = None
    if number is None or not least <= number <= most:
        raise values.InvalidInput(
            _("%(what)s must be a whole number from %(least)s to %(most)s."),
            what=what,
            least=least,
            most=most,
        )
    return number


class Tournament(models.Model):
    """A club's tournament of pairs, over rounds of series played on its tables."""

    ROUND_ROBIN, KNOCKOUT, ROUND_ROBIN_KNOCKOUT = "round_robin", "knockout", "round_robin_knockout"
    FORMATS = [
        (ROUND_ROBIN, _("round robin")),
        (KNOCKOUT, _("knockout")),
        (ROUND_ROBIN_KNOCKOUT, _("round robin, then knockout")),
    ]
    REGISTERING, IN_PLAY, FINISHED = "registering", "in_play", "finished"
    STATUSES = [(REGISTERING, _("registering")), (IN_PLAY, _("in play")), (FINISHED, _("finished"))]

    name = models.CharField(max_length=80)
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournaments"
    )
    format = models.CharField(max_length=24, choices=FORMATS, default=ROUND_ROBIN)
    # The round robin's rounds when the organiser asked for fewer than all of them.
    rounds_asked = models.PositiveSmallIntegerField(null=True, blank=True)
    knockout_size = models.PositiveSmallIntegerField(null=True, blank=True)
    table_count = models.PositiveSmallIntegerField(default=1)
    mocas_to_win = models.PositiveSmallIntegerField(default=3)
    # The house rule its rubbers play by: all 120 points a bandeira, every trick or not.
    bandeira_at_120 = models.BooleanField(default=False)
    watch_token = models.CharField(max_length=43, unique=True, default=new_token)
    version = models.PositiveIntegerField(default=1)
    # Set when the organiser ends it; a tournament whose last series ended is finished too
    # (board.py reads that from the rubbers).
    ended_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)

    objects = TournamentQuerySet.as_manager()

    class Meta:
        ordering = ["-created", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(format__in=["round_robin", "knockout", "round_robin_knockout"]),
                name="tournament_format_valid",
            ),
        ]

    def __str__(self):
        return self.name

    def is_organiser(self, user) -> bool:
        return user.is_authenticated and user.pk == self.organiser_id

    def watch_token_is(self, token) -> bool:
        return secrets.compare_digest(str(token or "").encode(), self.watch_token.encode())

    @property
    def knockout_phase(self) -> bool:
        return self.format in (self.KNOCKOUT, self.ROUND_ROBIN_KNOCKOUT)

    @property
    def round_robin_phase(self) -> bool:
        return self.format in (self.ROUND_ROBIN, self.ROUND_ROBIN_KNOCKOUT)

    # Changing ------------------------------------------------------------

    def lock(self) -> None:
        """Read the tournament again with its row locked; inside transaction.atomic()."""
        self.refresh_from_db(from_queryset=Tournament.objects.select_for_update())

    def changed(self) -> None:
        """Bump the version (under the lock) and tell its screens once it commits."""
        Tournament.objects.filter(pk=self.pk).update(version=models.F("version") + 1)
        self.refresh_from_db(fields=["version"])
        signals.topic_changed.send(sender=Tournament, topic=topic(self.pk), version=self.version)

    def require_organiser(self, user, what) -> None:
        if not self.is_organiser(user):
            raise NotAllowed(_("Only the tournament's organiser can %(what)s."), what=what)

    def set_pairs(self, by, pairs) -> None:
        """The organiser changes the pairs, until the first round is drawn."""
        pairs = read_pairs(pairs)
        with transaction.atomic():
            self.lock()
            self.require_organiser(by, _("change the pairs"))
            if self.rounds.exists():
                raise values.Conflict(
                    _("The first round has been drawn: the pairs can't change any more.")
                )
            first = self.pairs.first()
            club = (
                rosters.keeper().club_of(first.first_player_id) if first and first.roster else None
            )
            self.pairs.all().delete()
            self._register(pairs, club)
            self.changed()

    def progress(self, **kwargs):
        return progress(self, **kwargs)

    def start_round(self, by) -> Round:
        """The organiser draws the next round: its series, on the tables in order (the
        rest wait for a free table), each on a table with its first rubber started."""
        with transaction.atomic():
            self._lock_tables()
            self.require_organiser(by, _("start a round"))
            now = progress(self)
            if now.blocked == "unfinished":
                raise in_the_way(
                    _("Round %(number)s is still being played: %(in_the_way)s."),
                    now,
                    number=now.rounds[-1].number,
                )
            if now.blocked == "in_play":
                raise in_the_way(_("A table is still playing: %(in_the_way)s."), now)
            if now.blocked == "level_at_cut":
                names = {pair.pk: pair.name for pair in now.pairs}
                raise values.Conflict(
                    _("%(pairs)s share a place at the knockout's cut: settle it with a negra "
                      "first."),
                    pairs=", ".join(names[pair] for pair in now.level_at_cut),
                )  # fmt: skip
            if now.next_round is None:
                raise values.Conflict(_("No round is left: the tournament is over."))
            phase, drawn = now.next_round
            round = Round.objects.create(tournament=self, number=len(now.rounds) + 1, phase=phase)
            round.byes.set(drawn.byes)
            pairs = {pair.pk: pair for pair in now.pairs}
            tables = list(self.tables.all())
            for number, (a, b) in enumerate(drawn.meetings, 1):
                series = Series.objects.create(
                    round=round,
                    number=number,
                    a=pairs[a],
                    b=pairs[b],
                    table=tables[number - 1] if number <= len(tables) else None,
                )
                if series.table is not None:
                    self._first_rubber(series, series.table)
            self.changed()
        return round

    def _lock_tables(self) -> None:
        """Lock the last rubber of every table, then the tournament: the order of a
        change at a table (its rubber, then, as it finishes, the tournament), so that a
        round drawn while a table corrects its last rubber waits rather than deadlocks."""
        last = Match.objects.filter(
            night__in=Table.objects.filter(tournament=self).values("night"), following=None
        )
        list(last.select_for_update(of=("self",)).values_list("pk", flat=True))
        self.lock()

    def _first_rubber(self, series, table, *, after=None) -> Match:
        """Series ``series`` begins on ``table`` with its first rubber."""
        match = self._rubber_at(table, series.seat_names(), series.seat_players(), after=after)
        Rubber.objects.create(series=series, match=match)
        return match

    def _rubber_at(self, table, names, players, *, after=None) -> Match:
        """A new rubber on ``table`` with seats ``names`` (and a club's ``players``):
        after the last one played there (``after``, or read; its phones follow it), or
        the table's first of all."""
        if after is None:
            after = Match.objects.filter(night=table.night).order_by("-created", "-id").first()
        if after is None:
            return Match.objects.start(self.organiser, names, night=table.night, players=players)
        return after.hand_over(self.organiser, names, players)

    def play_on(self, match) -> None:
        """Rubber ``match`` has just finished (won or ended early) at its table, inside
        its change's transaction: the series' next rubber starts on the same table, or,
        once a pair has won the series, the round's next waiting series. A rubber that
        is no series' (a negra) or that already has its next leaves all as it is."""
        rubber = Rubber.objects.filter(match=match).select_related("series__table").first()
        if rubber is None:
            if Negra.objects.filter(match=match, tournament=self).exists():
                self.changed()
            return
        self.lock()
        if self.ended_at is not None or Match.objects.filter(previous=match).exists():
            return
        series = rubber.series
        now = progress(self).series_by_id(series.pk)
        if not now.decided:
            following = match.next_moca(self.organiser)
            Rubber.objects.create(series=series, match=following)
        else:
            waiting = (
                Series.objects.filter(round=series.round, table=None, walkover_winner=None)
                .select_related("a", "b")
                .order_by("number")
                .first()
            )
            if waiting is not None:
                waiting.table = series.table
                waiting.save(update_fields=["table"])
                self._first_rubber(waiting, series.table, after=match)
        self.changed()

    def walkover(self, by, series_id, winner_id) -> None:
        """The organiser records that a pair did not turn up: the series is won by the
        other, ``mocas_to_win``-0, its games 0-0. Refused once a rubber of it was won.
        A rubber in play for it is ended, and its table goes on to the next series."""
        with transaction.atomic():
            series = Series.objects.filter(pk=series_id, round__tournament=self).first()
            current = None
            if series is not None:
                # The rubber first, then the tournament: the order of a change at a table.
                current = (
                    Match.objects.select_for_update()
                    .filter(pk__in=series.rubbers.values("match"), status=Match.IN_PLAY)
                    .first()
                )
            self.lock()
            self.require_organiser(by, _("record a walkover"))
            if series is None:
                raise NotFound(_("There is no such series in this tournament."))
            state = progress(self).series_by_id(series.pk)
            if winner_id not in (series.a_id, series.b_id):
                raise values.InvalidInput(_("The winner must be one of the series' two pairs."))
            if state.walkover:
                raise values.Conflict(_("This series is already a walkover."))
            if state.mocas["a"] or state.mocas["b"] or state.decided:
                raise values.Conflict(
                    _("A rubber of this series has been won: it can't be a walkover now.")
                )
            series.walkover_winner_id = winner_id
            series.save(update_fields=["walkover_winner"])
            if current is not None:
                # The table goes on (play_on); its phones read that it was a walkover.
                current.end(self.organiser, walkover=series.side_of(winner_id))
            self.changed()

    def undo_walkover(self, by, series_id) -> None:
        """The organiser takes back a walkover recorded in error: the series is to be
        played again, the rubber the walkover ended back in play at its table (or, for
        a series that had none, it waits for a free table). Refused once that table
        has moved on: another rubber started there, the next round drawn, or a negra."""
        with transaction.atomic():
            self._lock_tables()
            self.require_organiser(by, _("take back a walkover"))
            series = (
                Series.objects.filter(pk=series_id, round__tournament=self)
                .select_related("round", "table", "a", "b")
                .first()
            )
            if series is None:
                raise NotFound(_("There is no such series in this tournament."))
            if series.walkover_winner_id is None:
                raise values.Conflict(_("This series is not a walkover: there is nothing to undo."))
            if self.ended_at is not None:
                raise values.Conflict(_("The tournament is over: its walkovers stand."))
            later = self.rounds.filter(number__gt=series.round.number).exists()
            if later or self.negras.exists():
                raise values.Conflict(
                    _("The tournament has moved on since (the next round or a negra has "
                      "started), so this walkover stands.")
                )  # fmt: skip
            last = Match.objects.filter(pk__in=series.rubbers.values("match")).first()
            if last is not None and last.next_rubber_id() is not None:
                raise values.Conflict(
                    _("Table %(table)s has moved on to its next series, so this walkover "
                      "stands."),
                    table=series.table.number,
                )  # fmt: skip
            series.walkover_winner = None
            series.save(update_fields=["walkover_winner"])
            if last is not None and last.walkover:
                last.reopen(self.organiser)  # its phones see it in play again
            elif series.table is None:
                self._seat_waiting(series)
            elif last is None or not last.in_play:
                self._first_rubber(series, series.table)
            self.changed()

    def _seat_waiting(self, series) -> None:
        """A series waiting for a table takes the first free one, if any is."""
        busy = Match.objects.filter(night=OuterRef("night"), status=Match.IN_PLAY)
        free = self.tables.annotate(busy=Exists(busy)).filter(busy=False).order_by("number").first()
        if free is not None:
            series.table = free
            series.save(update_fields=["table"])
            self._first_rubber(series, free)

    def play_negra(self, by, pair_ids) -> Match:
        """The organiser has two pairs that share a rank play a deciding rubber, once the
        round robin's rounds are all finished, on the first free table."""
        with transaction.atomic():
            self._lock_tables()
            self.require_organiser(by, _("record a negra"))
            ids = list(pair_ids) if isinstance(pair_ids, list | tuple) else []
            pairs = {pair.pk: pair for pair in self.pairs.filter(pk__in=ids)}
            if len(ids) != 2 or len(pairs) != 2:
                raise values.InvalidInput(_("Name two different pairs of this tournament."))
            now = progress(self)
            if not now.round_robin_done:
                raise values.Conflict(
                    _("A negra is played once the round robin's rounds are all finished.")
                )
            if not any(set(ids) <= set(group) for group in now.level_groups()):
                raise values.Conflict(_("These two pairs don't share a rank: no negra to play."))
            if any(negra.in_play for negra in now.negras):
                raise in_the_way(_("A negra is still being played: %(in_the_way)s."), now)
            free = [number for number, current in sorted(now.tables.items()) if current is None]
            if not free:
                raise values.Conflict(_("Every table is playing: wait for one to be free."))
            table = self.tables.get(number=free[0])
            a, b = (pairs[pk] for pk in ids)
            match = self._rubber_at(table, seat_names(a, b), seat_players(a, b))
            Negra.objects.create(tournament=self, a=a, b=b, match=match)
            self.changed()
        return match

    def _register(self, pairs, club=None) -> None:
        """The pairs as read (``read_pairs``), numbered in the order given; a club's
        are its roster's players, by the roster's names (a name not on it joins it)."""
        if club is None:
            rows = [Pair(first=first, second=second) for first, second in pairs]
        else:
            rows = [
                Pair(first=first.name, second=second.name, first_player=first, second_player=second)
                for first, second in rosters.keeper().pair(self.organiser, club, pairs)
            ]
        for number, pair in enumerate(rows, 1):
            pair.tournament, pair.number = self, number
        Pair.objects.bulk_create(rows)

    def end(self, by) -> None:
        """The organiser ends the tournament: no round is drawn after it. Rubbers in
        play stay as they are (their tables may finish them)."""
        with transaction.atomic():
            self.lock()
            self.require_organiser(by, _("end the tournament"))
            if self.ended_at is None:
                self.ended_at = timezone.now()
                self.save(update_fields=["ended_at"])
                self.changed()
