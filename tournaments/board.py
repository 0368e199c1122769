"""The one reading of a tournament, for every screen and the API: the chalkboard.

``read`` turns where the tournament stands (``models.progress``) into plain values
with names, in the active language: the standings with the reason for each tie-break,
every table with its series, mocas and the games of the rubber in play, the rounds
drawn. The organiser's page, the projector, the exports and the API all present this;
none of them decides anything.
"""

from dataclasses import dataclass, field

from django.db.models import Sum
from django.utils.translation import gettext_lazy as _

from matches.models import Match

from . import ranking
from .models import Round, Table, Tournament

AHEAD_ON = {
    ranking.HEAD_TO_HEAD_POINTS: _("ahead on head-to-head points"),
    ranking.HEAD_TO_HEAD_MOCAS: _("ahead on head-to-head mocas"),
    ranking.MOCA_DIFFERENCE: _("ahead on moca difference"),
    ranking.MOCAS_WON: _("ahead on mocas won"),
    ranking.GAME_DIFFERENCE: _("ahead on game difference"),
    ranking.NEGRA: _("ahead on the negra"),
}
PHASES = dict(Round.PHASES)
FORMATS = dict(Tournament.FORMATS)
STATUSES = dict(Tournament.STATUSES)


@dataclass
class SeriesLine:
    id: int
    number: int
    a: int
    b: int
    a_name: str
    b_name: str
    table: int | None
    mocas: dict
    games: dict  # the rubber in play's games, {"a": 0, "b": 0}; None when none is
    winner: int | None
    walkover: bool
    matches: list
    current_match: int | None
    # A walkover the organiser may still take back: its table has not moved on.
    walkover_undoable: bool = False

    @property
    def winner_name(self) -> str:
        if self.winner is None:
            return ""
        return self.a_name if self.winner == self.a else self.b_name

    @property
    def decided(self) -> bool:
        return self.winner is not None

    @property
    def waiting(self) -> bool:
        return self.table is None and not self.decided


@dataclass
class RoundLine:
    number: int
    phase: str
    finished: bool
    byes: list  # pair ids
    bye_names: list
    series: list

    @property
    def phase_label(self):
        return PHASES[self.phase]

    @property
    def status(self) -> str:
        return "finished" if self.finished else "in_play"


@dataclass
class StandingLine:
    rank: int
    pair: int
    name: str
    points: int
    series_won: int
    series_lost: int
    mocas_won: int
    mocas_lost: int
    games_won: int
    games_lost: int
    ahead_on: str | None
    shared: bool  # the rank is shared with another pair

    @property
    def reason(self) -> str:
        return str(AHEAD_ON[self.ahead_on]) if self.ahead_on else ""


@dataclass
class TableLine:
    number: int
    token: str
    series: SeriesLine | None  # the series being played there
    current_match: int | None
    negra: tuple | None = None  # (a's name, b's name) of a negra in play there


@dataclass
class Board:
    id: int
    name: str
    status: str
    format: str
    mocas_to_win: int
    rounds_asked: int | None
    knockout_size: int | None
    table_count: int
    version: int
    pairs: list  # Pair rows
    names: dict  # pair id -> "Ana & Rui"
    rounds: list
    standings: list
    tables: list
    waiting: list  # series of the round in play waiting for a table
    champion: int | None
    watch_token: str
    negras: list = field(default_factory=list)  # (a name, b name, winner name or "")
    level_groups: list = field(default_factory=list)  # [[pair id, ...], ...]
    blocked: str | None = None
    level_at_cut: list = field(default_factory=list)
    in_the_way: list = field(default_factory=list)  # progress.InTheWay: tables still playing
    can_draw: bool = False

    @property
    def format_label(self):
        return FORMATS[self.format]

    @property
    def status_label(self):
        return STATUSES[self.status]

    @property
    def champion_name(self) -> str:
        return self.names.get(self.champion, "")

    @property
    def current_round(self) -> RoundLine | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def next_round_number(self) -> int:
        return len(self.rounds) + 1


def version(tournament_id) -> int | None:
    """The tournament's version, as its screens follow it: its own, plus those of every
    rubber played at its tables (two queries). Every change to either moves it, and it
    never goes back (versions only grow, rubbers are only added)."""
    own = Tournament.objects.filter(pk=tournament_id).values_list("version", flat=True).first()
    if own is None:
        return None
    nights = Table.objects.filter(tournament_id=tournament_id).values("night")
    rubbers = Match.objects.filter(night__in=nights).aggregate(total=Sum("version"))["total"]
    return own + (rubbers or 0)


def _undoable(walkovers) -> None:
    """Mark the walkovers of the round in play whose table has not moved on: no rubber
    started after the series' last one (one query, when there are any)."""
    last = {line.matches[-1]: line for line in walkovers if line.matches}
    moved_on = set(
        Match.objects.filter(previous__in=list(last)).values_list("previous", flat=True)
    ) if last else set()  # fmt: skip
    for line in walkovers:
        line.walkover_undoable = not line.matches or line.matches[-1] not in moved_on


def read(tournament) -> Board:
    """The board of ``tournament`` (``progress``'s seven queries, and four more; five
    while a walkover of the round in play may be taken back)."""
    now = tournament.progress()
    names = {pair.pk: pair.name for pair in now.pairs}
    playing = [series.current_match for series in now.series() if series.current_match]
    games = {
        pk: {"a": a, "b": b}
        for pk, a, b in Match.objects.filter(pk__in=playing).values_list("pk", "games_a", "games_b")
    }
    rounds = []
    for round in now.rounds:
        lines = [
            SeriesLine(
                id=state.id,
                number=state.number,
                a=state.a,
                b=state.b,
                a_name=names[state.a],
                b_name=names[state.b],
                table=state.table,
                mocas=dict(state.mocas),
                games=games.get(state.current_match),
                winner=state.winner,
                walkover=state.walkover,
                matches=list(state.matches),
                current_match=state.current_match,
            )
            for state in round.series
        ]
        rounds.append(
            RoundLine(
                round.number,
                round.phase,
                round.finished,
                list(round.byes),
                [names[pair] for pair in round.byes],
                lines,
            )
        )
    ranks = [standing.rank for standing in now.standings]
    standings = [
        StandingLine(
            rank=standing.rank,
            pair=standing.pair,
            name=names[standing.pair],
            points=standing.points,
            series_won=standing.series_won,
            series_lost=standing.series_lost,
            mocas_won=standing.mocas_won,
            mocas_lost=standing.mocas_lost,
            games_won=standing.games_won,
            games_lost=standing.games_lost,
            ahead_on=standing.ahead_on,
            shared=ranks.count(standing.rank) > 1,
        )
        for standing in now.standings
    ]
    current = rounds[-1] if rounds else None
    if current is not None and tournament.ended_at is None and not now.negras:
        _undoable([line for line in current.series if line.walkover])
    on_table = {}
    if current is not None:
        on_table = {series.table: series for series in current.series if series.table}
    negras_in_play = {negra.row.match_id: negra for negra in now.negras if negra.in_play}
    tables = []
    for table in tournament.tables.all():
        match = now.tables.get(table.number)
        series = on_table.get(table.number)
        negra = negras_in_play.get(match)
        tables.append(
            TableLine(
                table.number,
                table.token,
                series if series is not None and (match or series.decided) else None,
                match,
                (names[negra.row.a_id], names[negra.row.b_id]) if negra else None,
            )
        )
    return Board(
        id=tournament.pk,
        name=tournament.name,
        status=now.status,
        format=tournament.format,
        mocas_to_win=tournament.mocas_to_win,
        rounds_asked=tournament.rounds_asked,
        knockout_size=tournament.knockout_size,
        table_count=tournament.table_count,
        version=version(tournament.pk),
        pairs=now.pairs,
        names=names,
        rounds=rounds,
        standings=standings,
        tables=tables,
        waiting=[line for line in current.series if line.waiting] if current else [],
        champion=now.champion,
        watch_token=tournament.watch_token,
        negras=[
            (
                names[negra.row.a_id],
                names[negra.row.b_id],
                names.get(negra.winner, ""),
            )
            for negra in now.negras
        ],
        level_groups=now.level_groups() if now.round_robin_done else [],
        blocked=now.blocked,
        level_at_cut=[names[pair] for pair in now.level_at_cut],
        in_the_way=now.in_the_way,
        can_draw=now.next_round is not None,
    )
