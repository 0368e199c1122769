"""The club as its pages and the API read it: the leaderboard, a player's record, a
season's table, the club's recent nights and tournaments. Plain values, each read in a
fixed number of queries however big the club grows (the stored ratings: ``rating.py``)."""

import datetime
from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Max, Q
from django.utils import timezone

from matches.models import Event, Match, Night, Seat
from tournaments.models import Pair, Tournament
from tournaments.models.progress import progress

from . import ratings, season
from .models import Club, ClubRubber, Player, Season, TournamentResult

# A partner or an opponent is judged from this many rubbers together (SPEC).
TOGETHER = 5


@dataclass
class Line:
    rank: int
    player: int
    name: str
    rating: float
    mu: float
    sigma: float
    rubbers: int
    won: int
    provisional: bool
    linked: bool = False


def leaderboard(club: Club) -> list[Line]:
    """Every player of the roster, best first by the conservative rating; those with no
    rated rubber last. Level ratings share the rank. One query."""
    players = club.players.defer("points").order_by("name", "id")
    lines = []
    for player in players:
        skill = player.skill
        lines.append(
            Line(
                rank=0,
                player=player.pk,
                name=player.name,
                rating=round(skill.rating, 2),
                mu=round(skill.mu, 3),
                sigma=round(skill.sigma, 3),
                rubbers=skill.rubbers,
                won=skill.won,
                provisional=skill.provisional,
                linked=player.user_id is not None,
            )
        )
    lines.sort(key=lambda line: (line.rubbers == 0, -line.rating))
    for index, line in enumerate(lines):
        before = lines[index - 1] if index else None
        level = before is not None and (before.rubbers == 0, before.rating) == (
            line.rubbers == 0,
            line.rating,
        )
        line.rank = before.rank if level else index + 1
    return lines


@dataclass
class Together:
    player: int
    name: str
    rubbers: int = 0
    won: int = 0

    @property
    def lost(self) -> int:
        return self.rubbers - self.won

    @property
    def share(self) -> float:
        return self.won / self.rubbers if self.rubbers else 0.0

    @property
    def few(self) -> bool:
        """Too few rubbers together to tell (SPEC: from TOGETHER on)."""
        return self.rubbers < TOGETHER


@dataclass
class Placing:
    tournament: int
    name: str
    pair: str
    place: int | None  # None while it is not finished, or has no final places
    finished: bool
    day: datetime.date | None


@dataclass
class Record:
    player: Player
    line: Line
    ratings: list = field(default_factory=list)  # {"match", "at", "rating", "mu", "sigma"}
    partners: list = field(default_factory=list)  # Together, best partners first
    opponents: list = field(default_factory=list)  # Together, the hardest first
    bandeiras: int = 0
    shutouts: int = 0
    tournaments: list = field(default_factory=list)  # Placing, newest first
    history: list = field(default_factory=list)  # the club rubbers played, newest first


def record(club: Club, player: Player, *, history=20) -> Record:
    """A player's record: the rating rubber by rubber, partners and opponents (from
    TOGETHER rubbers together), bandeiras and shutouts won, tournaments and places, and
    their latest rubbers."""
    line = next(line for line in leaderboard(club) if line.player == player.pk)
    at = dict(
        ClubRubber.objects.filter(club=club, match__seats__player=player).values_list(
            "match", "won_at"
        )
    )
    points = [
        {
            "match": key,
            "at": at.get(key),
            "rating": round(ratings.Skill(mu, sigma).rating, 2),
            "mu": round(mu, 3),
            "sigma": round(sigma, 3),
        }
        for key, mu, sigma, _won in player.points
    ]
    played = Seat.objects.filter(player=player, match__club_rubber__club=club).values("match")
    seats = Seat.objects.filter(match__in=played).values_list(
        "match", "position", "player", "player__name"
    )
    matches = {
        row["pk"]: row
        for row in Match.objects.filter(pk__in=played).values(
            "pk", "status", "winner", "walkover", "marks", "games_a", "games_b", "created"
        )
    }
    at_table: dict[int, dict[str, tuple[int, str]]] = defaultdict(dict)
    for match_id, position, player_id, name in seats:
        at_table[match_id][position] = (player_id, name)
    partners: dict[int, Together] = {}
    opponents: dict[int, Together] = {}
    bandeiras = shutouts = 0
    for match_id, sitting in at_table.items():
        row = matches[match_id]
        mine = next((p[0] for p, who in sitting.items() if who[0] == player.pk), None)
        # For the history's lines: the player's side and who sat where.
        row["side"] = mine
        row["names"] = {
            side: " & ".join(sitting[f"{side}{n}"][1] for n in (1, 2) if f"{side}{n}" in sitting)
            for side in "ab"
        }
        if mine is None or row["status"] != Match.WON or row["walkover"]:
            continue
        won = row["winner"] == mine
        if won:
            bandeiras += "bandeira" in row["marks"]
            shutouts += "shutout" in row["marks"]
        for position, (other, name) in sitting.items():
            if other is None or other == player.pk:
                continue
            book = partners if position[0] == mine else opponents
            entry = book.setdefault(other, Together(other, name))
            entry.rubbers += 1
            entry.won += won
    return Record(
        player=player,
        line=line,
        ratings=points,
        partners=sorted(
            partners.values(),
            key=lambda t: (t.rubbers < TOGETHER, -t.share, -t.rubbers, t.name),
        ),
        opponents=sorted(
            opponents.values(),
            key=lambda t: (t.rubbers < TOGETHER, t.share, -t.rubbers, t.name),
        ),
        bandeiras=bandeiras,
        shutouts=shutouts,
        tournaments=placings(club, player),
        history=sorted(matches.values(), key=lambda row: row["created"], reverse=True)[:history],
    )


def club_tournaments(club: Club):
    """The club's tournaments: those whose pairs are its roster's players."""
    return Tournament.objects.filter(
        pk__in=Pair.objects.filter(first_player__club=club).values("tournament")
    )


def keep_result(tournament: Tournament, club_id: int) -> TournamentResult:
    """How club tournament ``tournament`` stands, kept for the seasons and the records:
    finished or not, on what day, its final places (its progress: seven queries)."""
    now = progress(tournament)
    day = None
    if now.finished:
        at = (
            tournament.ended_at
            or Event.objects.filter(match__night__club_table__tournament=tournament).aggregate(
                last=Max("at")
            )["last"]
        )
        day = timezone.localdate(at) if at else None
    result, _made = TournamentResult.objects.update_or_create(
        tournament=tournament,
        defaults={
            "club_id": club_id,
            "finished": now.finished,
            "day": day,
            "places": [[place.place, list(place.pairs)] for place in (now.final or [])],
        },
    )
    return result


def placings(club: Club, player: Player) -> list[Placing]:
    """The club tournaments ``player`` played in, newest first, with their places (one
    query however many)."""
    pairs = (
        Pair.objects.filter(tournament__in=club_tournaments(club))
        .filter(Q(first_player=player) | Q(second_player=player))
        .select_related("tournament__club_result")
        .order_by("-tournament__created", "-tournament_id")
    )
    result = []
    for pair in pairs:
        kept = getattr(pair.tournament, "club_result", None)
        places = kept.places if kept else []
        place = next((number for number, ids in places if pair.pk in ids), None)
        finished = bool(kept and kept.finished)
        day = kept.day if kept else None
        result.append(
            Placing(pair.tournament_id, pair.tournament.name, pair.name, place, finished, day)
        )
    return result


@dataclass
class SeasonTable:
    season: Season
    tournaments: list  # TournamentResult, the ones that count
    lines: list  # season.Line with .name

    @property
    def tournament_ids(self) -> list[int]:
        return [done.tournament_id for done in self.tournaments]


def season_table(club: Club, chosen: Season) -> SeasonTable:
    """The season's table (SPEC): every tournament of the club finished within its days,
    but a knockout ended without its champion (a fixed number of queries)."""
    counted = list(
        TournamentResult.objects.filter(
            club=club, finished=True, day__gte=chosen.start, day__lte=chosen.end
        )
        .exclude(places=[])
        .select_related("tournament")
        .order_by("day", "tournament__created", "tournament_id")
    )
    pairs = {
        pair.pk: pair
        for pair in Pair.objects.filter(tournament__in=[done.tournament_id for done in counted])
    }
    won = Seat.objects.filter(
        match__in=Match.objects.filter(
            night__club_table__tournament__in=[done.tournament_id for done in counted],
            status=Match.WON,
        ),
        player__isnull=False,
    ).filter(
        Q(position__startswith="a", match__winner="a")
        | Q(position__startswith="b", match__winner="b")
    )
    rubbers_won: dict[int, int] = defaultdict(int)
    for player_id in won.values_list("player", flat=True):
        rubbers_won[player_id] += 1
    lines = season.table(
        [
            season.Finished(
                places=done.places,
                players={
                    pk: (pairs[pk].first_player_id, pairs[pk].second_player_id)
                    for _place, ids in done.places
                    for pk in ids
                },
            )
            for done in counted
        ],
        chosen.points,
        chosen.taking_part,
        rubbers_won,
    )
    names = dict(
        Player.objects.filter(pk__in=[line.player for line in lines]).values_list("pk", "name")
    )
    for line in lines:
        line.name = names.get(line.player, "")
    return SeasonTable(chosen, counted, lines)


def recent_nights(club: Club, count=10) -> list:
    """The club's latest casual nights (not a tournament's tables), newest first."""
    return list(
        Night.objects.filter(matches__club_rubber__club=club, tournament_table=False)
        .distinct()
        .order_by("-created")[:count]
    )


@dataclass
class ClubReading:
    pk: int
    name: str
    version: int
    organiser_list: list
    player_list: list
    season_list: list
    watch_token: str


def read(club: Club) -> ClubReading:
    """The club, its organisers, its roster and its seasons (four queries)."""
    return ClubReading(
        pk=club.pk,
        name=club.name,
        version=club.version,
        organiser_list=list(club.organisers.order_by("first_name", "username")),
        player_list=list(club.players.defer("points").order_by("name", "id")),
        season_list=list(club.seasons.all()),
        watch_token=club.watch_token,
    )
