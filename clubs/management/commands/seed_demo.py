"""manage.py seed_demo, with a club: the demo night and the two tournaments (the
``tournaments``' command, which this one extends), then "Café Central", organised by
demo-ana, played through the same model methods as the pages and the phones:

- a roster of twelve regulars (Ana, Rui, Zé and Maria linked to their demo accounts);
- a season covering today, and three finished club tournaments in it (4 pairs, a round
  robin of single rubbers), each with other partners;
- eight casual club nights of six rubbers, the partners changing between rubbers: enough
  rubbers for the forecasts' calibration to trust the ratings a little.

Who wins is drawn from each player's hidden strength with a fixed seed, so the ratings
have something to find and every run plays the same. Running it again replaces the club
(with its nights and tournaments); nothing else is touched.
"""

import datetime
import random

from django.db import transaction
from django.db.models import Q
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from clubs import board
from clubs.models import Club
from clubs.roster import Keeper
from matches import rules
from matches.models import Match, Night, User
from tournaments.management.commands.seed_demo import Command as DemoTournaments
from tournaments.management.commands.seed_demo import play_round
from tournaments.models import Tournament

CLUB = "Café Central"
# The roster, each with a strength the results follow (never shown: the ratings find it).
STRENGTH = {"Ana": 3, "Rui": 2, "Zé": 1, "Maria": 3, "Inês": 2, "Tiago": 0, "Beatriz": 1,
            "Duarte": 0, "Carla": 2, "Nuno": 1, "Sofia": 0, "Hugo": 1}  # fmt: skip
ACCOUNTS = {"Ana": "demo-ana", "Rui": "demo-rui", "Zé": "demo-ze", "Maria": "demo-maria"}
TOURNAMENTS = {
    "Torneio de outono": [["Ana", "Tiago"], ["Rui", "Zé"], ["Maria", "Sofia"], ["Inês", "Nuno"]],
    "Torneio de Natal": [["Ana", "Duarte"], ["Maria", "Hugo"], ["Carla", "Rui"], ["Zé", "Inês"]],
    "Torneio de Reis": [["Maria", "Nuno"], ["Ana", "Sofia"], ["Inês", "Hugo"], ["Carla", "Zé"]],
}
# Each casual night's four players, seated a1, a2, b1, b2 for its first rubber; each
# rematch seats the same four with other partners.
NIGHTS = {
    "Sexta no Café Central": ["Ana", "Rui", "Zé", "Maria"],
    "Quinta dos petiscos": ["Inês", "Tiago", "Carla", "Duarte"],
    "Sábado à tarde": ["Beatriz", "Nuno", "Sofia", "Hugo"],
    "Noite de sueca": ["Ana", "Carla", "Tiago", "Beatriz"],
    "Sexta de chuva": ["Maria", "Duarte", "Sofia", "Rui"],
    "Véspera de feriado": ["Zé", "Hugo", "Inês", "Nuno"],
    "Sueca e castanhas": ["Ana", "Sofia", "Hugo", "Tiago"],
    "Última sexta do mês": ["Maria", "Beatriz", "Carla", "Zé"],
}
RUBBERS_A_NIGHT = 6
SEATS = ("a1", "a2", "b1", "b2")
SWAP_PARTNERS = {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"}
OTHER_PARTNERS = {"a1": "a1", "a2": "b2", "b1": "b1", "b2": "a2"}
# How a rubber is won, by the winning side ``w`` and the other ``l``: (side, games, sweep).
SHEETS = [
    [("w", 2), ("w", 2)],
    [("w", 4, "sweep")],
    [("l", 1), ("w", 2), ("w", 2)],
    [("w", 0), ("l", 0), ("w", 2), ("w", 2)],
    [("l", 2), ("w", 1), ("w", 3)],
]


def season_days(today):
    """The season (época) today falls in: September to August."""
    year = today.year if today.month >= 9 else today.year - 1
    return (
        f"Época {year}/{str(year + 1)[-2:]}",
        datetime.date(year, 9, 1),
        datetime.date(year + 1, 8, 31),
    )


def chance_a(names):
    """Side a's chance, from the four players' strengths ({"a1": name, ...})."""
    a = STRENGTH[names["a1"]] + STRENGTH[names["a2"]]
    b = STRENGTH[names["b1"]] + STRENGTH[names["b2"]]
    return 1 / (1 + 10 ** ((b - a) / 2))


def play_to_the_end(match, by, winner, rng):
    """``winner`` wins the rubber in play, by one of SHEETS."""
    loser = "b" if winner == "a" else "a"
    for side, games, *sweep in rng.choice(SHEETS):
        match.record(
            by,
            deal=rules.current_deal(match.sheet()),
            side=winner if side == "w" else loser,
            games=games,
            sweep=bool(sweep),
        )


class Command(DemoTournaments):
    help = DemoTournaments.help + " And a club with its roster, a season and its nights."

    @transaction.atomic
    def handle(self, *args, **options):
        super().handle(*args, **options)
        ana = User.objects.get(username="demo-ana")
        replaced = self.clear(ana)
        rng = random.Random(45)
        club = Club.objects.open(ana, CLUB)
        players = {name: club.add_player(ana, name) for name in STRENGTH}
        for name, username in ACCOUNTS.items():
            token = club.hand_link(ana, players[name].pk).link_token
            Club.link_account(User.objects.get(username=username), token)
        name, start, end = season_days(timezone.localdate())
        season = club.add_season(ana, name=name, start=start, end=end)

        for title, pairs in TOURNAMENTS.items():
            tournament = Tournament.objects.open(
                ana, name=title, pairs=pairs, tables=2, mocas_to_win=1, club=club.pk
            )
            strength = {
                pair.pk: STRENGTH[pair.first] + STRENGTH[pair.second]
                for pair in tournament.pairs.all()
            }
            while not tournament.progress().finished:
                tournament.start_round(ana)
                play_round(tournament, self.drawn(rng, strength))

        for title, four in NIGHTS.items():
            seats = dict(zip(SEATS, (players[name].pk for name in four), strict=True))
            names, ids = Keeper().seat(ana, club.pk, seats)
            match = Match.objects.start(ana, names, players=ids, night_name=title, place=CLUB)
            for number in range(RUBBERS_A_NIGHT):
                if number:
                    moves = (SWAP_PARTNERS, OTHER_PARTNERS, None)[number % 3]
                    match = match.rematch(ana, moves)
                seated = {seat.position: seat.name for seat in match.seats.all()}
                winner = "a" if rng.random() < chance_a(seated) else "b"
                play_to_the_end(match, ana, winner, rng)

        top = board.leaderboard(club)[0]
        self.stdout.write(
            f"\n{'Replaced' if replaced else 'Made'} the club {CLUB} of demo-ana's: "
            f"{len(players)} players, {len(TOURNAMENTS)} tournaments in {season.name}, "
            f"{len(NIGHTS)} club nights; {top.name} leads the ratings. "
            f"Its page: {self.club_page(club)} (demo-ana organises it; the four demo accounts "
            "play there)."
        )

    @staticmethod
    def drawn(rng, strength):
        """Who wins each series: the stronger pair more often than not."""

        def winner(series):
            gap = strength[series.a] - strength[series.b]
            return series.a if rng.random() < 1 / (1 + 10 ** (-gap / 2)) else series.b

        return winner

    @staticmethod
    def clear(ana) -> bool:
        """The demo club of a run before, with its nights and tournaments (whose seats and
        pairs hold on to its players): whether there was one."""
        # Demo-ana's, whether she organises it still or only plays there.
        old = Club.objects.filter(
            pk__in=Club.objects.filter(name=CLUB)
            .filter(Q(organisers=ana) | Q(players__user=ana))
            .values("pk")
        )
        if not old.exists():
            return False
        for club in old:
            tournaments = board.club_tournaments(club)
            Night.objects.filter(pk__in=tournaments.values("tables__night")).delete()
            tournaments.delete()
            Night.objects.filter(matches__club_rubber__club=club).delete()
        old.delete()
        return True

    @staticmethod
    def club_page(club) -> str:
        """The club's page where this branch has one, else its API."""
        try:
            return reverse("club", args=[club.pk])
        except NoReverseMatch:
            return f"/api/clubs/{club.pk}/"
