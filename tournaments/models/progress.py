"""Where a tournament stands, read from its rubbers: each series' mocas and winner,
each round's end, the standings, the champion, and what the next round would be.

Nothing of it is kept: a rubber corrected or undone at its table changes it at once.
It reads in a fixed number of queries however far the tournament has gone (seven), and
every figure comes from the matches' own results (``games_a``, ``winner``, ``status``).
"""

import random
from dataclasses import dataclass, field

from django.db.models import OuterRef, Subquery
from django.utils.translation import gettext

from matches.models import Match

from .. import draw, places, ranking
from .rows import Negra, Round, Rubber, Series, Table


@dataclass
class SeriesState:
    id: int
    number: int
    a: int  # the pairs' ids: a is listed first, and sits on side a
    b: int
    table: int | None  # its number, while on one
    walkover_winner: int | None
    round: int
    phase: str
    mocas: dict = field(default_factory=lambda: {"a": 0, "b": 0})
    games: dict = field(default_factory=lambda: {"a": 0, "b": 0})
    matches: list = field(default_factory=list)
    current_match: int | None = None  # the rubber in play, if any
    winner: int | None = None  # a pair's id once the series is decided

    @property
    def walkover(self) -> bool:
        return self.walkover_winner is not None

    @property
    def decided(self) -> bool:
        return self.winner is not None

    @property
    def waiting(self) -> bool:
        return self.table is None and not self.decided

    def side_of(self, pair_id) -> str:
        return "a" if pair_id == self.a else "b"


@dataclass
class RoundState:
    row: Round
    byes: list
    series: list

    @property
    def number(self):
        return self.row.number

    @property
    def phase(self):
        return self.row.phase

    @property
    def finished(self) -> bool:
        return all(series.decided for series in self.series)


@dataclass
class NegraState:
    row: Negra
    status: str
    winner: int | None  # a pair's id once won

    @property
    def in_play(self) -> bool:
        return self.status == Match.IN_PLAY


@dataclass
class InTheWay:
    """What keeps the next round from starting: a table still playing, or a series
    waiting for one; ``text`` says it in the active language."""

    text: str
    table: int | None  # its number
    match: int | None  # the rubber in play there
    series: int | None = None


@dataclass
class Progress:
    tournament: object
    pairs: list
    rounds: list
    negras: list
    tables: dict  # number -> the match in play there, or None
    standings: list = field(default_factory=list)
    champion: int | None = None
    finished: bool = False
    # What the next round would be: (phase, draw.Round) to draw; or a reason it can't.
    next_round: tuple | None = None
    blocked: str | None = None  # "unfinished", "in_play", "level_at_cut", "none_left"
    level_at_cut: list = field(default_factory=list)
    in_the_way: list = field(default_factory=list)  # InTheWay, while unfinished or in play
    # The final places (places.Place, best first) once finished; None before.
    final: list | None = None

    @property
    def status(self) -> str:
        if not self.rounds:
            return "finished" if self.finished else "registering"
        return "finished" if self.finished else "in_play"

    def series(self):
        return [series for round in self.rounds for series in round.series]

    def series_by_id(self, pk) -> SeriesState | None:
        return next((series for series in self.series() if series.id == pk), None)

    def level_groups(self) -> list[list]:
        return ranking.level_groups(self.standings)

    @property
    def round_robin_done(self) -> bool:
        """Whether the round robin's rounds are all drawn and finished."""
        tournament = self.tournament
        if not tournament.round_robin_phase:
            return False
        played = [round for round in self.rounds if round.phase == Round.ROUND_ROBIN]
        return len(played) == planned_round_robin(tournament, len(self.pairs)) and all(
            round.finished for round in played
        )


def planned_round_robin(tournament, pairs: int) -> int:
    full = pairs - 1 if pairs % 2 == 0 else pairs
    return min(tournament.rounds_asked or full, full)


def progress(tournament, *, rng=None) -> Progress:
    """Where ``tournament`` stands now (seven queries)."""
    pairs = list(tournament.pairs.all())
    rounds = list(tournament.rounds.prefetch_related("byes"))
    # The series and rubbers of the rounds just read: a round drawn between these queries
    # (a screen reading while the organiser draws) is left for the next reading, rather
    # than its series found without their round.
    drawn = [round.pk for round in rounds]
    # Plain values, not rows: a whole night is thousands of series.
    series_rows = Series.objects.filter(round__in=drawn).values_list(
        "pk", "number", "a", "b", "table__number", "walkover_winner", "round"
    )
    rubbers = (
        Rubber.objects.filter(series__round__in=drawn)
        .order_by("id")
        .values_list(
            "series_id", "match_id", "match__status", "match__winner", "match__games_a",
            "match__games_b",
        )
    )  # fmt: skip
    negras = list(
        Negra.objects.filter(tournament=tournament)
        .select_related("match")
        .only("a", "b", "tournament", "match__status", "match__winner")
    )
    in_play = Match.objects.filter(night=OuterRef("night"), status=Match.IN_PLAY).order_by(
        "-created", "-id"
    )
    tables = dict(
        Table.objects.filter(tournament=tournament)
        .annotate(current=Subquery(in_play.values("pk")[:1]))
        .values_list("number", "current")
    )

    target = tournament.mocas_to_win
    by_round = {
        round.pk: RoundState(round, [pair.pk for pair in round.byes.all()], []) for round in rounds
    }
    states = {}
    # Each query sees the newest commit: a round drawn between them is read in part, and
    # is left for the next reading (a table's phone asks while the organiser draws).
    for pk, number, a, b, table, walkover_winner, round_id in series_rows:
        round = by_round.get(round_id)
        if round is None:
            continue
        state = SeriesState(pk, number, a, b, table, walkover_winner, round.number, round.phase)
        states[pk] = state
        round.series.append(state)
    for series_id, match_id, status, winner, games_a, games_b in rubbers:
        state = states.get(series_id)
        if state is None:
            continue
        state.matches.append(match_id)
        if status == Match.IN_PLAY:
            state.current_match = match_id
        elif status == Match.WON and not state.walkover:
            state.mocas[winner] += 1
            state.games["a"] += games_a
            state.games["b"] += games_b
    for state in states.values():
        if state.walkover:
            winner = state.side_of(state.walkover_winner)
            state.mocas = {"a": 0, "b": 0, winner: target}
            state.games = {"a": 0, "b": 0}
            state.winner = state.walkover_winner
            state.current_match = None
        elif max(state.mocas.values()) >= target:
            state.winner = state.a if state.mocas["a"] >= target else state.b
    for round in by_round.values():
        round.series.sort(key=lambda state: state.number)

    negra_states = [
        NegraState(
            negra,
            negra.match.status,
            (negra.a_id if negra.match.winner == "a" else negra.b_id)
            if negra.match.status == Match.WON
            else None,
        )
        for negra in negras
    ]
    result = Progress(tournament, pairs, list(by_round.values()), negra_states, tables)
    ranked_phase = Round.KNOCKOUT if tournament.format == tournament.KNOCKOUT else Round.ROUND_ROBIN
    result.standings = ranking.standings(
        [pair.pk for pair in pairs],
        [
            _ranked(state)
            for state in states.values()
            if state.decided and state.phase == ranked_phase
        ],
        [
            (negra.winner, negra.row.b_id if negra.winner == negra.row.a_id else negra.row.a_id)
            for negra in negra_states
            if negra.winner is not None
        ],
    )
    _plan(result, rng or random.SystemRandom())
    if result.finished:
        result.final = _final_places(result)
    return result


def _in_the_way(result: Progress) -> list[InTheWay]:
    """Every table still playing, with who plays there, then every series of the last
    round waiting for a table: what the organiser must see finished first."""
    names = {pair.pk: pair.name for pair in result.pairs}
    last = result.rounds[-1] if result.rounds else None
    series = {state.current_match: state for state in last.series} if last else {}
    negras = {negra.row.match_id: negra.row for negra in result.negras if negra.in_play}
    found = []
    for table, match in sorted(result.tables.items()):
        if match is None:
            continue
        if match in series:
            state = series[match]
            text = gettext("Table %(table)s (%(a)s v %(b)s, moca %(moca)s) is still playing") % {
                "table": table,
                "a": names[state.a],
                "b": names[state.b],
                "moca": state.mocas["a"] + state.mocas["b"] + 1,
            }
            found.append(InTheWay(text, table, match, state.id))
        elif match in negras:
            negra = negras[match]
            text = gettext("Table %(table)s (negra: %(a)s v %(b)s) is still playing") % {
                "table": table,
                "a": names[negra.a_id],
                "b": names[negra.b_id],
            }
            found.append(InTheWay(text, table, match))
        else:
            text = gettext("Table %(table)s (rubber %(match)s) is still playing") % {
                "table": table,
                "match": match,
            }
            found.append(InTheWay(text, table, match))
    for state in last.series if last else []:
        if not state.decided and state.current_match is None:
            text = gettext("%(a)s v %(b)s are waiting for a table") % {
                "a": names[state.a],
                "b": names[state.b],
            }
            found.append(InTheWay(text, state.table, None, state.id))
    return found


def _final_places(result: Progress) -> list:
    """SPEC's final places: the knockout's champion first, and so on down the bracket;
    the round robin's order for the rest, or for all when the knockout had no champion."""
    tournament = result.tournament
    round_robin = None
    if tournament.round_robin_phase:
        round_robin = [(standing.pair, standing.rank) for standing in result.standings]
    champion = result.champion if tournament.knockout_phase else None
    knockout = [
        places.KnockoutRound([_won_lost(series) for series in round.series], round.byes)
        for round in result.rounds
        if round.phase == Round.KNOCKOUT and round.finished
    ]
    return places.final_places(round_robin, knockout, champion)


def _won_lost(series: SeriesState) -> tuple:
    return series.winner, series.b if series.winner == series.a else series.a


def _ranked(state: SeriesState) -> ranking.Series:
    mocas, games = state.mocas, state.games
    return ranking.Series(
        state.a, state.b, mocas["a"], mocas["b"], games["a"], games["b"], state.winner
    )


def _plan(result: Progress, rng) -> None:
    """The next round, the champion and whether the tournament is over."""
    tournament = result.tournament
    rounds = result.rounds
    last = rounds[-1] if rounds else None
    knockout = [round for round in rounds if round.phase == Round.KNOCKOUT]
    if knockout and knockout[-1].finished:
        final = knockout[-1]
        if len(final.series) == 1 and not final.byes:
            result.champion = final.series[0].winner
    if tournament.format == tournament.ROUND_ROBIN and result.round_robin_done:
        top = [standing for standing in result.standings if standing.rank == 1]
        if len(top) == 1:
            result.champion = top[0].pair
    if tournament.ended_at is not None:
        result.finished, result.blocked = True, "none_left"
        return
    if last is not None and not last.finished:
        result.blocked = "unfinished"
        result.in_the_way = _in_the_way(result)
        return
    if any(result.tables.values()):
        # A negra, or any rubber still in play at a table, keeps it busy.
        result.blocked = "in_play"
        result.in_the_way = _in_the_way(result)
        return
    ids = [pair.pk for pair in result.pairs]
    if tournament.round_robin_phase and not result.round_robin_done:
        planned = planned_round_robin(tournament, len(ids))
        drawn = draw.round_robin(ids, planned)[len(rounds)]
        result.next_round = (Round.ROUND_ROBIN, drawn)
        return
    if not tournament.knockout_phase:
        result.finished, result.blocked = True, "none_left"
        return
    if knockout:
        final = knockout[-1]
        going_on = [series.winner for series in final.series] + final.byes
        if len(going_on) < 2:
            result.finished, result.blocked = True, "none_left"
            return
        if tournament.format == tournament.ROUND_ROBIN_KNOCKOUT:
            result.next_round = (Round.KNOCKOUT, draw.bracket(going_on))
        else:
            result.next_round = (Round.KNOCKOUT, draw.knockout_round(going_on, rng))
        return
    if tournament.format == tournament.KNOCKOUT:
        result.next_round = (Round.KNOCKOUT, draw.knockout_round(ids, rng))
        return
    size = min(tournament.knockout_size or 2, len(ids))
    standings = result.standings
    if len(standings) > size and standings[size - 1].rank == standings[size].rank:
        # A level place at the cut is settled by a negra first.
        rank = standings[size].rank
        result.level_at_cut = [standing.pair for standing in standings if standing.rank == rank]
        result.blocked = "level_at_cut"
        return
    result.next_round = (
        Round.KNOCKOUT,
        draw.seeded([standing.pair for standing in standings[:size]]),
    )
