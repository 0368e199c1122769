"""A tournament's rubber as its sheet shows it: the tournament, the table, the round, the
moca and the series' score in mocas (``matches.places``, registered by the app).

A sheet reads its match with the match's night and that night's table, if it is a
tournament's (joined: an ordinary rubber costs no query); a tournament's rubber then reads
its series and the series' rubbers in one query more, however far the series has gone.
"""

from dataclasses import dataclass, field

from django.urls import reverse

from matches.models import Match

from . import places
from .models import Round, Rubber, round_name

RELATED = ("night__club_table",)


@dataclass(frozen=True)
class Moca:
    """One rubber of the series, as it ended (or not yet)."""

    number: int
    status: str
    winner: str  # "a", "b", or "" while in play or when ended early
    winner_name: str
    won: int  # the winner's games, and the loser's
    lost: int


@dataclass(frozen=True)
class Place:
    id: int  # the tournament's
    name: str
    table: int | None
    round: int
    round_name: str
    series: int
    moca: int  # this rubber's number in its series
    mocas: dict  # the series' score, {"a": 1, "b": 0}
    mocas_to_win: int
    pairs: dict  # {"a": "Ana & Rui", "b": "Zé & Maria"}
    starting: bool  # in play, nothing entered yet
    walkover: bool
    table_url: str  # the table's link, what its QR code opens
    next_url: str  # what comes next for the series' pairs (``views.screens.series_next``)
    mocas_played: list = field(default_factory=list)  # [Moca], in order
    now_playing: dict | None = None  # the pairs of the next series at this table

    @property
    def winner(self) -> str | None:
        """The side that won the series, once one has."""
        if self.mocas["a"] >= self.mocas_to_win:
            return "a"
        if self.mocas["b"] >= self.mocas_to_win:
            return "b"
        return None

    @property
    def winner_name(self) -> str:
        return self.pairs[self.winner] if self.winner else ""

    @property
    def loser_mocas(self) -> int:
        return self.mocas["b" if self.winner == "a" else "a"] if self.winner else 0

    @property
    def previous(self) -> Moca | None:
        """The moca before this one, whose result the table sees as this one starts."""
        return self.mocas_played[self.moca - 2] if self.moca > 1 else None

    @property
    def between_mocas(self) -> Moca | None:
        """The moca just played, while this one has only started: the moment the table
        is told how it ended and that the next has begun."""
        return self.previous if self.starting else None


def place_of(match) -> Place | None:
    """Where ``match`` stands in its tournament (``matches.places``); None for a rubber
    of another night, or a negra."""
    table = getattr(match.night, "club_table", None)
    if table is None:
        return None
    rubbers = list(
        Rubber.objects.filter(series__rubbers__match=match)
        .select_related(
            "match", "series__round__tournament", "series__table", "series__a", "series__b"
        )
        .order_by("id")
    )
    if not rubbers:
        return None
    series = rubbers[0].series
    tournament = series.round.tournament
    mocas, played = {"a": 0, "b": 0}, []
    for number, rubber in enumerate(rubbers, 1):
        # This rubber as the sheet read it (under its lock, for a change's answer).
        row = match if rubber.match_id == match.pk else rubber.match
        games = {"a": row.games_a, "b": row.games_b}
        winner = row.winner if row.status == Match.WON else ""
        if winner:
            mocas[winner] += 1
        won, lost = (games[winner], games["b" if winner == "a" else "a"]) if winner else (0, 0)
        pairs = {"a": series.a.name, "b": series.b.name}
        played.append(Moca(number, row.status, winner, pairs.get(winner, ""), won, lost))
    if series.walkover_winner_id is not None:
        winner = "a" if series.walkover_winner_id == series.a_id else "b"
        mocas = {"a": 0, "b": 0, winner: tournament.mocas_to_win}
    ids = [rubber.match_id for rubber in rubbers]
    following = getattr(match, "following", None)
    now_playing = None
    if following is not None and following.pk not in ids:
        now_playing = following.side_names()
    token = table.token
    return Place(
        id=tournament.pk,
        name=tournament.name,
        table=series.table.number if series.table else table.number,
        round=series.round.number,
        round_name=round_name(series.round.number, series.round.phase, _size_of(series.round)),
        series=series.pk,
        moca=ids.index(match.pk) + 1,
        mocas=mocas,
        mocas_to_win=tournament.mocas_to_win,
        pairs={"a": series.a.name, "b": series.b.name},
        starting=match.status == Match.IN_PLAY and not match.deal_list(),
        walkover=series.walkover_winner_id is not None,
        table_url=reverse("table", args=[token]),
        next_url=reverse("series_next", args=[token, series.pk]),
        mocas_played=played,
        now_playing=now_playing,
    )


# What comes next ---------------------------------------------------------------------

TABLE, WAITING_TABLE, BYE, WAITING_ROUND, OUT, OVER = (
    "table", "waiting_table", "bye", "waiting_round", "out", "over",
)  # fmt: skip
SETTLED = (TABLE, OUT, OVER)  # nothing more to learn at this phone


@dataclass(frozen=True)
class PairNext:
    """Where a pair of a finished series goes next: to a table of the next round (or to
    wait for one), sitting out, waiting for the round to be drawn, out of the knockout,
    or home, the tournament over."""

    side: str
    name: str
    kind: str
    round: int | None = None
    round_name: str = ""
    table: int | None = None
    table_url: str = ""
    champion: str = ""  # once the tournament is over

    @property
    def settled(self) -> bool:
        return self.kind in SETTLED


def _bracket(phase, series, byes) -> int | None:
    """A knockout round's bracket size (its name: the final, the semi-finals...)."""
    return places.round_size(2 * series + byes) if phase == Round.KNOCKOUT else None


def _size_of(round) -> int | None:
    # Two counts, for a knockout's rubbers alone: a round robin's are named by number.
    if round.phase != Round.KNOCKOUT:
        return None
    return _bracket(round.phase, round.series.count(), round.byes.count())


def whats_next(tournament, series_id, tables: dict) -> list[PairNext] | None:
    """Where each pair of series ``series_id`` goes next, pair a first; None while the
    series is still being played. ``tables`` maps the tables' numbers to their links."""
    now = tournament.progress()
    series = now.series_by_id(series_id)
    if series is None or not series.decided:
        return None
    names = {pair.pk: pair.name for pair in now.pairs}
    later = [round for round in now.rounds if round.number > series.round]
    going = []
    for side, pair in (("a", series.a), ("b", series.b)):
        said = {"side": side, "name": names[pair]}
        if later:
            round = later[-1]
            size = _bracket(round.phase, len(round.series), len(round.byes))
            said.update(round=round.number, round_name=round_name(round.number, round.phase, size))
            mine = next((one for one in round.series if pair in (one.a, one.b)), None)
            if mine is not None and mine.table is not None:
                said.update(kind=TABLE, table=mine.table, table_url=tables[mine.table])
            elif mine is not None:
                said.update(kind=WAITING_TABLE)
            elif pair in round.byes:
                said.update(kind=BYE)
            else:
                said.update(kind=OUT)
        elif now.finished:
            said.update(kind=OVER, champion=names.get(now.champion, ""))
        elif series.phase == Round.KNOCKOUT and series.winner != pair:
            said.update(kind=OUT)
        elif _left_out(pair, series, now.next_round):
            said.update(kind=OUT)  # not among the round robin's top: no knockout for them
        else:
            number = len(now.rounds) + 1
            phase, size = series.phase, None
            if now.next_round:
                phase, drawn = now.next_round
                size = _bracket(phase, len(drawn.meetings), len(drawn.byes))
            name = round_name(number, phase, size)
            said.update(kind=WAITING_ROUND, round=number, round_name=name)
        going.append(PairNext(**said))
    return going


def _left_out(pair, series, next_round) -> bool:
    """Whether the round robin just ended without ``pair`` among the knockout's pairs."""
    if series.phase != Round.ROUND_ROBIN or next_round is None:
        return False
    phase, drawn = next_round
    playing = {one for meeting in drawn.meetings for one in meeting} | set(drawn.byes)
    return phase == Round.KNOCKOUT and pair not in playing
