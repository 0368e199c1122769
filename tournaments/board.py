"""The one reading of a tournament, for every screen and the API: the chalkboard.

``read`` turns where the tournament stands (``models.progress``) into plain values
with names, in the active language: the standings with the reason for each tie-break,
every table with its series, mocas and the games of the rubber in play, the rounds
drawn. The organiser's page, the projector, the exports and the API all present this;
none of them decides anything.
"""

from dataclasses import dataclass, field, replace

from django.db.models import Sum
from django.utils.text import capfirst
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from matches.models import Match

from . import places, ranking
from .models import Round, Table, Tournament, round_name

# Why a pair is above the next one on the same points, as a player says it: each names
# the pair it is ahead of.
AHEAD_OF = {
    ranking.HEAD_TO_HEAD_POINTS: _("ahead of %(pair)s on head-to-head points"),
    ranking.HEAD_TO_HEAD_MOCAS: _("ahead of %(pair)s on head-to-head mocas"),
    ranking.MOCA_DIFFERENCE: _("ahead of %(pair)s on moca difference"),
    ranking.MOCAS_WON: _("ahead of %(pair)s on mocas won"),
    ranking.GAME_DIFFERENCE: _("ahead of %(pair)s on game difference"),
    ranking.NEGRA: _("ahead of %(pair)s: won the negra"),
}
START_KNOCKOUT = {
    2: _("Start the final"),
    4: _("Start the semi-finals"),
    8: _("Start the quarter-finals"),
    16: _("Start the round of 16"),
    32: _("Start the round of 32"),
    64: _("Start the round of 64"),
}
# How far a pair of the knockout went, beside its final place.
OUT_IN = {
    2: _("Lost the final"),
    4: _("Out in the semi-finals"),
    8: _("Out in the quarter-finals"),
    16: _("Out in the round of 16"),
    32: _("Out in the round of 32"),
    64: _("Out in the round of 64"),
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
    def size(self) -> int | None:
        """A knockout round's bracket: 2 for the final, 4 the semi-finals..."""
        if self.phase != Round.KNOCKOUT:
            return None
        return places.round_size(2 * len(self.series) + len(self.byes))

    @property
    def name(self) -> str:
        """ "Round 3" in a round robin; a knockout round by what it is ("Semi-finals")."""
        return round_name(self.number, self.phase, self.size)

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
    shared: bool  # the rank (or, listed by final place, the place) is shared
    # Why it stands there, as a sentence: shared and with whom, or ahead of whom and why.
    reason: str = ""
    place: int | None = None  # its final place, in Board.listed once there are some
    stage: str = ""  # there too: how far a pair of the knockout went ("Lost the final")


@dataclass
class BracketSlot:
    """A place in a round of the bracket: a series, a pair sitting the round out, or,
    for a round not drawn yet, nothing."""

    series: SeriesLine | None = None
    bye: int | None = None  # the pair's id
    bye_name: str = ""

    @property
    def pairs(self) -> tuple:
        if self.series is not None:
            return (self.series.a, self.series.b)
        return (self.bye,) if self.bye is not None else ()

    @property
    def goes_on(self) -> int | None:
        return self.series.winner if self.series is not None else self.bye


@dataclass
class BracketRound:
    name: str
    slots: list  # BracketSlot, in bracket order: slots 2k and 2k+1 feed slot k of the next


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
    bandeira_at_120: bool
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
    next_size: int | None = None  # the next round's bracket, when it is a knockout's
    final: list | None = None  # places.Place, best first, once finished; None before
    bracket: list = field(default_factory=list)  # BracketRound, first knockout round on

    @property
    def listed(self) -> list:
        """The standings as the room reads them: by final place once there are final
        places (the champion first), else by the standings' rank."""
        if not self.final:
            return self.standings
        lines = {line.pair: line for line in self.standings}
        went_to = self.went_to
        placed = []
        for place in self.final:
            for pair in place.pairs:
                placed.append(
                    replace(
                        lines[pair],
                        place=place.place,
                        shared=len(place.pairs) > 1,
                        stage=went_to.get(pair, ""),
                    )
                )
        return placed

    @property
    def went_to(self) -> dict:
        """How far each pair of a finished knockout went ("Out in the semi-finals")."""
        if self.champion is None or not self.final or not self.bracket:
            return {}
        out = {self.champion: gettext("Champions")}
        for round in self.rounds:
            if round.phase == Round.KNOCKOUT:
                for series in round.series:
                    loser = series.b if series.winner == series.a else series.a
                    out[loser] = str(OUT_IN[round.size])
        return out

    @property
    def start_label(self) -> str:
        """What the button that draws the next round says."""
        if self.next_size:
            return str(START_KNOCKOUT[self.next_size])
        return gettext("Start round %(number)s") % {"number": self.next_round_number}

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
            shared=False,
        )
        for standing in now.standings
    ]
    _explain(standings)
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
        bandeira_at_120=tournament.bandeira_at_120,
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
        next_size=_next_size(now.next_round),
        final=now.final,
        bracket=_bracket(rounds, finished=now.finished),
    )


def _explain(lines: list[StandingLine]) -> None:
    """Each line's sentence: a shared rank says it is shared, with whom and why; a pair
    above the next one on the same points says it is ahead of it, and on what."""
    for index, line in enumerate(lines):
        level = [other for other in lines if other.rank == line.rank]
        line.shared = len(level) > 1
        ahead = ""
        if line.ahead_on and index + 1 < len(lines):
            ahead = AHEAD_OF[line.ahead_on] % {"pair": lines[index + 1].name}
        if line.shared:
            sentence = gettext("Shares the place with %(pairs)s: level on everything") % {
                "pairs": ", ".join(other.name for other in level if other is not line)
            }
            if ahead:
                # The group is ahead of the next pair, not this pair alone.
                sentence = gettext("%(shared)s; together, %(ahead)s") % {
                    "shared": sentence,
                    "ahead": ahead,
                }
            line.reason = sentence
        else:
            line.reason = capfirst(ahead)


def _next_size(next_round) -> int | None:
    if next_round is None or next_round[0] != Round.KNOCKOUT:
        return None
    drawn = next_round[1]
    return places.round_size(2 * len(drawn.meetings) + len(drawn.byes))


def _bracket(rounds, *, finished) -> list[BracketRound]:
    """The knockout as a bracket, from its first round to the champion. Each round's
    slots are ordered after the next round's (the slot a pair came from beside the slot
    of the one it meets next), so that a round drawn at random still reads as a tree;
    rounds not drawn yet are empty slots, until the tournament is over."""
    knockout = [round for round in rounds if round.phase == Round.KNOCKOUT]
    if not knockout:
        return []
    columns = [
        [BracketSlot(series=series) for series in round.series]
        + [
            BracketSlot(bye=pair, bye_name=name)
            for pair, name in zip(round.byes, round.bye_names, strict=True)
        ]
        for round in knockout
    ]
    for later in range(len(columns) - 1, 0, -1):
        earlier = columns[later - 1]
        fed = []
        for slot in columns[later]:
            for pair in slot.pairs:
                fed += [index for index, feeder in enumerate(earlier) if feeder.goes_on == pair]
        fed += [index for index in range(len(earlier)) if index not in fed]
        columns[later - 1] = [earlier[index] for index in dict.fromkeys(fed)]
    bracket = [
        BracketRound(round.name, column) for round, column in zip(knockout, columns, strict=True)
    ]
    size = knockout[-1].size
    while size > 2 and not finished:
        size //= 2
        bracket.append(
            BracketRound(round_name(None, Round.KNOCKOUT, size), [BracketSlot()] * (size // 2))
        )
    return bracket
