"""What a big club costs: its readings as it grows, and a correction of its oldest rubber.

Builds a PostgreSQL database of its own on the server DATABASE_URL names, with one club
of --players players whose rated rubbers are made in bulk (the matches, their seats with
the roster's players, a deal each, the club's rubbers in the order they were won), and
rates them once from the first (``clubs.rating.rerate``, timed). At each size of --sizes
(1,000, 5,000 and 20,000 rubbers by default) it asks, as an organiser:

- the leaderboard (``/api/clubs/<id>/ratings/``, and ``clubs.board.leaderboard``) and a
  player's record (``/api/clubs/<id>/players/<pid>/``, the player with the most rubbers):
  the queries each takes, which must be the same at every size and within the sheet's
  budgets (BUDGETS), and the median time of each as a ratio to the bare view's
  (bench/urls.py's ``/bench/ok/``) through the same stack in this one process;
- at the largest size, a correction of the club's oldest rubber: a real
  ``Match.correct`` flipping its winner, which sends ``result_changed`` and re-rates every
  rubber of the club in the correction's transaction (``clubs/receivers.py``). Median and
  max of --corrections runs, each under CORRECTION_LIMIT seconds.

    DATABASE_URL=postgres://user:password@host:5432/postgres .venv/bin/python bench/clubs.py

``--check`` runs it small (500, 1,000 and 2,000 rubbers) for the suite
(tests/test_bench_clubs.py): it judges the queries and that a correction re-rates, and
reports the correction's time without judging it, a time on a shared machine being no
verdict on the code (the limit is for the full run). The database DATABASE_URL names is
only used to connect: the bench works in a squarescores_clubs_bench_* database of its
own and drops it at the end.
"""

import argparse
import os
import random
import secrets
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pages import admin, server_url, use, with_database  # noqa: E402

# Not bench/pages.py's prefix: the suite may run both at once, and each drops what it
# finds left of its own.
PREFIX = "squarescores_clubs_bench_"
SIZES = [1_000, 5_000, 20_000]
CHECK_SIZES = [500, 1_000, 2_000]
PLAYERS = 40
RUBBERS_A_NIGHT = 10
START = datetime(2024, 9, 6, 21, 0, tzinfo=UTC)
CORRECTION_LIMIT = 2.0  # seconds (issue 45)
# The most queries each reading may take: the sheet's own budget as the API reads it
# (tests/test_api_matches.py, a signed-in client: 8).
BUDGETS = {"leaderboard": 8, "record": 8, "board.leaderboard": 8}


# The club -----------------------------------------------------------------------------


def open_club(players):
    """The club, its organiser and its roster, each player with a hidden strength."""
    from clubs.models import Club, Player, name_key
    from matches.models import User

    organiser = User.objects.create(username="organiser", display_name="Organiser")
    club = Club.objects.open(organiser, "Café Central")
    names = [f"Jogador {number}" for number in range(1, players + 1)]
    roster = Player.objects.bulk_create(
        Player(club=club, name=name, key=name_key(name)) for name in names
    )
    rng = random.Random(45)
    strength = {player.pk: rng.gauss(0, 1) for player in roster}
    return club, organiser, strength


def add_rubbers(club, organiser, strength, count, made):
    """``count`` more won rubbers of the club, after the ``made`` already there: each
    between four players drawn at random and won by a bandeira in one deal, the stronger
    side more often than not; their places in the ratings' order follow ``made``'s."""
    from clubs.models import ClubRubber
    from matches import rules
    from matches.models import Deal, Match, Night, Seat

    rng = random.Random(made + 1)
    players = sorted(strength)
    nights = Night.objects.bulk_create(
        Night(host=organiser, name=f"Noite {number}", created=START + timedelta(days=number))
        for number in range(made // RUBBERS_A_NIGHT, (made + count) // RUBBERS_A_NIGHT)
    )
    fours, rows = [], []
    for index in range(count):
        four = rng.sample(players, 4)
        gap = strength[four[0]] + strength[four[1]] - strength[four[2]] - strength[four[3]]
        winner = "a" if rng.random() < 1 / (1 + 10 ** (-gap / 2)) else "b"
        deal = rules.Deal(4, 0, sweep=True) if winner == "a" else rules.Deal(0, 4, sweep=True)
        outcome = rules.result([deal])
        when = START + timedelta(minutes=made + index)
        fours.append((four, deal, when))
        rows.append(
            Match(
                night=nights[index // RUBBERS_A_NIGHT],
                host=organiser,
                status=Match.WON,
                winner=outcome.winner,
                games_a=outcome.games["a"],
                games_b=outcome.games["b"],
                marks=list(outcome.marks),
                version=2,
                created=when,
                updated=when,
            )
        )
    matches = Match.objects.bulk_create(rows, batch_size=2000)
    Seat.objects.bulk_create(
        (
            Seat(match=match, position=position, name=f"Jogador {player}", player_id=player)
            for match, (four, _deal, _when) in zip(matches, fours, strict=True)
            for position, player in zip(("a1", "a2", "b1", "b2"), four, strict=True)
        ),
        batch_size=4000,
    )
    Deal.objects.bulk_create(
        (
            Deal(match=match, number=1, a=deal.a, b=deal.b, sweep=True, a_by=organiser,
                 b_by=organiser)
            for match, (_four, deal, _when) in zip(matches, fours, strict=True)
        ),
        batch_size=4000,
    )  # fmt: skip
    ClubRubber.objects.bulk_create(
        (
            ClubRubber(match=match, club=club, forecast=0.5, won_at=when)
            for match, (_four, _deal, when) in zip(matches, fours, strict=True)
        ),
        batch_size=4000,
    )


def rate_all(club):
    """Every rubber rated from the first, once: seconds."""
    from django.db import connection

    from clubs import rating

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    started = time.perf_counter()
    rating.rerate(club.pk)
    return time.perf_counter() - started


# The readings -------------------------------------------------------------------------


def readings(club, organiser):
    """What is asked at each size: name -> a function that asks it once."""
    from django.db.models import F
    from rest_framework.test import APIClient

    from clubs import board

    client = APIClient()
    client.force_authenticate(organiser)
    busiest = club.players.order_by(-F("rubbers"), "pk").values_list("pk", flat=True).first()

    def api(path):
        def ask():
            response = client.get(path)
            assert response.status_code == 200, (path, response.status_code)

        return ask

    return {
        "control": api("/bench/ok/"),
        "leaderboard": api(f"/api/clubs/{club.pk}/ratings/"),
        "record": api(f"/api/clubs/{club.pk}/players/{busiest}/"),
        "board.leaderboard": lambda: board.leaderboard(club),
    }


def count_queries(ask):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        ask()
    return len(captured.captured_queries)


def measure(club, organiser, repeats):
    """Each reading's queries, and its median milliseconds (the control's interleaved)."""
    asked = readings(club, organiser)
    queries = {name: count_queries(ask) for name, ask in asked.items() if name != "control"}
    times = {name: [] for name in asked}
    for _ in range(repeats):
        for name, ask in asked.items():
            started = time.perf_counter()
            ask()
            times[name].append((time.perf_counter() - started) * 1000)
    return queries, {name: statistics.median(values) for name, values in times.items()}


def correct_oldest(club, organiser, runs):
    """The oldest rubber's winner flipped ``runs`` times, each by a real correction
    (re-rating the whole club): seconds each, of the clock and of this process's CPU,
    and whether the ratings followed."""
    from clubs.models import ClubRubber, Player
    from matches.models import Match

    oldest = ClubRubber.objects.filter(club=club).order_by("won_at", "match").first().match_id
    seconds, followed = [], True
    cpu = []  # this process's CPU seconds each: what a busy machine does not inflate
    for _ in range(runs):
        match = Match.objects.get(pk=oldest)
        flipped = {"a": 0, "b": 4} if match.winner == "a" else {"a": 4, "b": 0}
        before = dict(Player.objects.filter(club=club).values_list("pk", "mu"))
        started, started_cpu = time.perf_counter(), time.process_time()
        match.correct(organiser, number=1, sweep=True, **flipped)
        seconds.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        match.refresh_from_db()
        after = dict(Player.objects.filter(club=club).values_list("pk", "mu"))
        followed &= match.winner == ("b" if flipped["b"] else "a") and after != before
    return {"seconds": seconds, "cpu": cpu, "followed": followed}


def win_new(club, organiser, runs):
    """``runs`` new rubbers of the club won, each by its last entry (a bandeira), which
    rates that rubber alone: the usual case. Seconds each entry took."""
    from matches.models import Match

    players = list(club.players.order_by("pk").values_list("pk", flat=True))
    seconds = []
    for number in range(runs):
        four = random.Random(number).sample(players, 4)
        ids = dict(zip(("a1", "a2", "b1", "b2"), four, strict=True))
        names = {position: f"Jogador {pk}" for position, pk in ids.items()}
        match = Match.objects.start(organiser, names, players=ids)
        started = time.perf_counter()
        match.record(organiser, deal=1, side="a", games=4, sweep=True)
        seconds.append(time.perf_counter() - started)
    return seconds


def tournament_growth(club, organiser, played=(1, 3)):
    """The queries of a player's record after they played ``played`` club tournaments
    (4 pairs, single rubbers, played through the models), and of the season's table
    counting as many: {tournaments: (record's, season table's)}."""
    import datetime

    from django.utils import timezone

    from clubs import board
    from tournaments.management.commands.seed_demo import play_round
    from tournaments.models import Tournament

    player = club.players.order_by("pk").first()
    others = list(club.players.exclude(pk=player.pk).order_by("pk").values_list("name", flat=True))
    today = timezone.localdate()
    season = club.add_season(
        organiser,
        name="Época",
        start=today - datetime.timedelta(days=1),
        end=today + datetime.timedelta(days=1),
    )
    counts, done = {}, 0
    for target in played:
        while done < target:
            names = [player.name, *others[7 * done : 7 * done + 7]]
            tournament = Tournament.objects.open(
                organiser,
                name=f"Torneio {done + 1}",
                pairs=[names[index : index + 2] for index in range(0, 8, 2)],
                tables=2,
                mocas_to_win=1,
                club=club.pk,
            )
            while not tournament.progress().finished:
                tournament.start_round(organiser)
                play_round(tournament, lambda series: series.a)
            done += 1
        club.refresh_from_db()
        counts[target] = (
            count_queries(lambda: board.record(club, player)),
            count_queries(lambda: board.season_table(club, season)),
        )
    return counts


# The run ------------------------------------------------------------------------------


def run(args):
    club, organiser, strength = open_club(args.players)
    made, rows = 0, []
    for size in args.sizes:
        started = time.perf_counter()
        add_rubbers(club, organiser, strength, size - made, made)
        built = time.perf_counter() - started
        made = size
        rated = rate_all(club)
        club.refresh_from_db()
        queries, medians = measure(club, organiser, args.repeats)
        rows.append((size, built, rated, queries, medians))
        print(
            f"{size:,} rubbers: made in {built:.1f} s, rated from the first in {rated:.2f} s",
            flush=True,
        )
    correction = correct_oldest(club, organiser, args.corrections)
    if args.profile:
        profile_correction(club, organiser)
    rows[-1][4]["new rubber won"] = statistics.median(win_new(club, organiser, args.corrections))
    correction["tournaments"] = tournament_growth(club, organiser)
    return rows, correction


def profile_correction(club, organiser):
    """One more correction under cProfile: where its time goes, the costliest first."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.runcall(correct_oldest, club, organiser, 1)
    print("\nwhere a correction's time goes (cProfile, cumulative):")
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(25)


def report(rows, correction, args):
    seconds = correction["seconds"]
    names = list(BUDGETS)
    print(f"\nqueries{'':<13}" + "".join(f"{size:>10,}" for size, *_ in rows) + "    budget")
    for name in names:
        counts = [queries[name] for _size, _built, _rated, queries, _medians in rows]
        print(f"{name:<20}" + "".join(f"{count:>10}" for count in counts) + f"{BUDGETS[name]:>10}")
    print(f"\n{'ms (× the bare view)':<20}" + "".join(f"{size:>16,}" for size, *_ in rows))
    print(f"{'bare view':<20}" + "".join(f"{m['control']:>16.2f}" for *_, m in rows))
    for name in names:
        print(
            f"{name:<20}"
            + "".join(f"{m[name]:>8.2f} ({m[name] / m['control']:>4.1f}×)" for *_, m in rows)
        )
    print(
        f"\ncorrection of the oldest rubber at {rows[-1][0]:,} rubbers, {len(seconds)} runs:"
        f" median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s"
        f" (limit {CORRECTION_LIMIT:g} s); this process's CPU, median"
        f" {statistics.median(correction['cpu']):.2f} s"
    )
    print(
        f"a new rubber won (its last entry, rating it alone) at {rows[-1][0]:,} rubbers: "
        f"median {rows[-1][4]['new rubber won'] * 1000:.0f} ms"
    )
    print(f"medians of {args.repeats} requests each, in one process")
    growth = correction["tournaments"]
    print(
        "\nqueries by tournaments played (the places kept, so the same however many):\n"
        + "\n".join(
            f"{played} tournament(s): a player's record {record}, the season's table {table}"
            for played, (record, table) in growth.items()
        )
    )

    failures = []
    for name in names:
        counts = {queries[name] for *_, queries, _medians in rows}
        if len(counts) != 1:
            failures.append(f"{name} takes {sorted(counts)} queries as the club grows")
        if max(counts) > BUDGETS[name]:
            failures.append(f"{name} takes {max(counts)} queries (budget {BUDGETS[name]})")
    if len(set(growth.values())) != 1:
        counts = sorted(set(growth.values()))
        failures.append(
            f"the record and the season's table take {counts} queries as tournaments grow"
        )
    if not correction["followed"]:
        failures.append("a correction of the oldest rubber left the ratings as they were")
    if not args.check and max(seconds) > CORRECTION_LIMIT:
        failures.append(f"a correction took {max(seconds):.2f} s (limit {CORRECTION_LIMIT:g} s)")
    if failures:
        print("FAIL: " + "; ".join(failures))
        return 1
    if args.check:
        print("OK: the queries are flat and within budget, and a correction re-rates the club")
    else:
        print("OK: the queries are flat and within budget, and every correction within its limit")
    return 0


def sizes(text):
    values = [int(part) for part in text.split(",")]
    whole = all(value >= RUBBERS_A_NIGHT and not value % RUBBERS_A_NIGHT for value in values)
    if not whole or values != sorted(set(values)):
        raise argparse.ArgumentTypeError(
            f"rising sizes in whole nights of {RUBBERS_A_NIGHT} rubbers: not {text}"
        )
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=sizes, default=SIZES, help="rubbers, e.g. 1000,5000")
    parser.add_argument("--players", type=int, default=PLAYERS)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--corrections", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="profile one more correction")
    parser.add_argument("--check", action="store_true", help="small and quick, for the suite")
    parser.add_argument("--keep", action="store_true", help="keep the database")
    args = parser.parse_args()
    if args.check:
        args.sizes, args.repeats, args.corrections = CHECK_SIZES, 5, 3

    parts = server_url()
    name = f"{PREFIX}{secrets.token_hex(4)}"
    os.environ["DATABASE_URL"] = with_database(parts, name)
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.settings"  # the bare view at /bench/ok/
    os.environ.setdefault("DEBUG", "true")
    os.environ.setdefault("DATABASE_STATEMENT_TIMEOUT", "0")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.ALLOWED_HOSTS = ["testserver"]
    # The development settings (and key), but no log of every query: it would be timed
    # too, and a re-rating's queries are big. The counts are taken as the tests take them.
    settings.DEBUG = False
    admin(parts, f'CREATE DATABASE "{name}"')
    try:
        use(name)
        call_command("migrate", verbosity=0)
        print(f"a club of {args.players} players, rubbers made in bulk and rated:", flush=True)
        rows, correction = run(args)
    finally:
        from django.db import connection

        connection.close()
        if args.keep:
            print(f"kept the database {name}")
        else:
            admin(parts, f'DROP DATABASE IF EXISTS "{name}"')
    return report(rows, correction, args)


if __name__ == "__main__":
    sys.exit(main())
