"""Do the history, night and standings pages stay as fast on a big database?

Builds two PostgreSQL databases of its own on the server DATABASE_URL names: a
small one of 100 rubbers, and a big one of 100,000 rubbers with 1,000,000 deals,
4,000 players and 10,000 nights. In both, the person timed (Ana) played the same
100 rubbers over ten nights; the big one adds everyone else's. Then, in this one
process, it asks each page as Ana many times from each database and prints the
medians and the ratio big / small, which should stay under 2.

    DATABASE_URL=postgres://user:password@host:5432/postgres .venv/bin/python bench/pages.py

With --rubbers N the big database holds N rubbers (ten deals each, a player for every 25),
so that the suite can run the whole bench in seconds (tests/test_bench_pages.py).

The database DATABASE_URL names is only used to connect: the bench creates
squarescores_bench_* databases, works in them alone, and drops them at the end.
"""

import argparse
import json
import os
import random
import secrets
import statistics
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RUBBERS = 100_000  # in the big database, by default
DEALS_A_RUBBER = 10
RUBBERS_A_PLAYER = 25
RUBBERS_A_NIGHT = 10
ANA_RUBBERS = 100
PREFIX = "squarescores_bench_"
START = datetime(2023, 1, 6, 21, 0)


def fail(message):
    print(f"bench: {message}", file=sys.stderr)
    sys.exit(2)


def server_url():
    url = os.environ.get("DATABASE_URL", "")
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql", "pgsql"):
        fail("set DATABASE_URL to a PostgreSQL server (postgres://user:password@host:port/db).")
    return parts


def with_database(parts, name):
    return urlunsplit(parts._replace(path=f"/{name}"))


def admin(parts, sql):
    """Run CREATE or DROP DATABASE on the server, outside any transaction."""
    import psycopg

    with psycopg.connect(with_database(parts, parts.path.lstrip("/")), autocommit=True) as conn:
        conn.execute(sql)


# The data ----------------------------------------------------------------------------


def rubber_sheet(rng, length, status):
    """A valid sheet of ``length`` deals: ties and one-game deals, and for a won
    rubber a last deal that takes the winner to 4 (a bandeira when it is worth 4)."""
    from matches import rules

    winner = rng.choice("ab")
    before = length - 1 if status == "won" else length
    loser_games = rng.randint(0, min(3, before))
    winner_games = rng.randint(0, min(3, before - loser_games))
    cells = ["tie"] * (before - loser_games - winner_games)
    cells += [rules.other(winner)] * loser_games + [winner] * winner_games
    rng.shuffle(cells)
    deals = []
    for cell in cells:
        if cell == "tie":
            deals.append(rules.Deal(0, 0))
        else:
            deals.append(rules.Deal(*((1, 0) if cell == "a" else (0, 1))))
    if status == "won":
        pending = rules.pending_extra(deals)
        games = 4 - winner_games + pending
        sweep = rules.is_sweep(games, False, pending)
        deals.append(rules.Deal(*((games, 0) if winner == "a" else (0, games)), sweep=sweep))
    outcome = rules.result(deals)
    assert (outcome.winner is not None) == (status == "won"), (deals, status)
    return deals, outcome


def lengths(rng, count, total):
    """``count`` rubber lengths from 4 to 16 adding up to ``total`` exactly."""
    mean = total // count
    sizes = [mean] * count
    for index in range(0, count - 1, 2):
        shift = rng.randint(-6, 6)
        sizes[index] += shift
        sizes[index + 1] -= shift
    sizes[-1] += total - sum(sizes)
    return sizes


class Builder:
    """Rows for COPY, with ids given here so the tables can refer to each other: each
    model's rows give the fields FIELDS names for it, in that order."""

    def __init__(self):
        self.users, self.nights, self.matches, self.seats, self.deals = [], [], [], [], []

    def user(self, pk, username, name):
        self.users.append((pk, "!", False, username, "", "", "", False, True, START, name, False))

    def night(self, rng, pk, host, when, sitting, count, sizes, status_of):
        """One night of ``count`` rubbers by the same four, swapping partners now and then."""
        self.nights.append((pk, f"{when:%Y-%m-%d}", "", host, when))
        seating = list(sitting)
        for number in range(count):
            if number and rng.random() < 0.3:
                seating[1], seating[2] = seating[2], seating[1]
            match_id = len(self.matches) + 1
            created = when + timedelta(minutes=25 * number)
            status = status_of(rng)
            deals, outcome = rubber_sheet(rng, sizes.pop(), status)
            self.matches.append(
                (
                    match_id, pk, host, match_id - 1 if number else None, status, 4,
                    "counterclockwise", "a1", len(deals) + 1,
                    outcome.games["a"], outcome.games["b"], outcome.winner or "",
                    json.dumps(list(outcome.marks)),
                    seating[0][0] if status == "ended" else None,
                    created + timedelta(minutes=20) if status == "ended" else None,
                    created, created + timedelta(minutes=20),
                )
            )  # fmt: skip
            for position, (user_id, name) in zip(("a1", "a2", "b1", "b2"), seating, strict=True):
                self.seats.append((len(self.seats) + 1, match_id, position, name, user_id))
            for deal_number, deal in enumerate(deals, start=1):
                self.deals.append(
                    (len(self.deals) + 1, match_id, deal_number, deal.a, deal.b, deal.sweep,
                     seating[0][0], seating[0][0])
                )  # fmt: skip


def status_of(rng):
    roll = rng.random()
    return "won" if roll < 0.9 else "ended" if roll < 0.97 else "in_play"


def build(rubbers):
    """The rows of one database of ``rubbers`` rubbers: Ana's 100, and everyone else's."""
    rng = random.Random(5)
    builder = Builder()
    builder.user(1, "ana", "Ana")
    ana = (1, "Ana")
    ana_rng = random.Random(1)  # the same rubbers of Ana's in both databases
    ana_nights = ANA_RUBBERS // RUBBERS_A_NIGHT
    ana_sizes = lengths(ana_rng, ANA_RUBBERS, ANA_RUBBERS * DEALS_A_RUBBER)
    friends = [(pk, f"Friend {pk}") for pk in range(2, 32)]
    for pk, name in friends:
        builder.user(pk, f"friend{pk}", name)
    big = rubbers > ANA_RUBBERS
    others_nights = (rubbers - ANA_RUBBERS) // RUBBERS_A_NIGHT
    every = ana_nights + others_nights
    # Ana's nights fall evenly among everyone else's, across three years.
    ana_slots = {round(index * every / ana_nights) for index in range(ana_nights)}
    players = max(rubbers // RUBBERS_A_PLAYER, 35)  # four others at least
    others = [(pk, f"Player {pk}") for pk in range(32, players + 1)] if big else []
    for pk, name in others:
        builder.user(pk, f"player{pk}", name)
    other_rubbers = rubbers - ANA_RUBBERS
    other_sizes = lengths(rng, other_rubbers, other_rubbers * DEALS_A_RUBBER) if big else []
    for slot in range(every):
        night_id = slot + 1
        when = START + timedelta(hours=2.6 * slot)
        if slot in ana_slots:
            three = ana_rng.sample(friends, 3)
            sitting = [ana, *three] if night_id % 2 else [three[0], ana, three[1], three[2]]
            host = sitting[0][0]
            builder.night(ana_rng, night_id, host, when, sitting, RUBBERS_A_NIGHT, ana_sizes,
                          status_of)  # fmt: skip
        else:
            sitting = rng.sample(others, 4)
            builder.night(rng, night_id, sitting[0][0], when, sitting, RUBBERS_A_NIGHT,
                          other_sizes, status_of)  # fmt: skip
    return builder


# The fields each model's rows give (Builder), in their order; copy_columns() fills the rest.
FIELDS = {
    "User": ("id", "password", "is_superuser", "username", "first_name", "last_name", "email",
             "is_staff", "is_active", "date_joined", "display_name", "is_guest"),
    "Night": ("id", "name", "place", "host_id", "created"),
    "Match": ("id", "night_id", "host_id", "previous_id", "status", "target", "direction",
              "first_dealer", "version", "games_a", "games_b", "winner", "marks", "ended_by_id",
              "ended_at", "created", "updated"),
    "Seat": ("id", "match_id", "position", "name", "user_id"),
    "Deal": ("id", "match_id", "number", "a", "b", "sweep", "a_by_id", "b_by_id"),
}  # fmt: skip


def copy_columns(model, given):
    """The columns COPY writes in ``model``'s table, read from the model: those of the
    fields ``given``, then each other one, with what makes its value for a row (its
    default as Django would save it, made afresh a row when the default is a function,
    as the night's unique tokens are; else NULL). A field the rows leave out that takes
    neither stops the bench here, as does a field the model no longer has."""
    from django.db import connection

    fields = {field.attname: field for field in model._meta.concrete_fields}
    gone = [name for name in given if name not in fields]
    if gone:
        fail(f"{model.__name__} has no field {', '.join(gone)}: update FIELDS and Builder.")
    columns, fillers = [fields[name].column for name in given], []
    for name, field in fields.items():
        if name in given or field.has_db_default():  # the database fills the latter
            continue
        if not (field.has_default() or field.null):
            fail(
                f"{model._meta.db_table}.{field.column} takes no NULL and has no default: "
                "give it a value in FIELDS and Builder."
            )
        columns.append(field.column)
        fillers.append(filler(field, connection))
    return columns, fillers


def filler(field, connection):
    def made():
        return field.get_db_prep_save(field.get_default(), connection)

    if callable(field.default):
        return made
    value = made()
    return lambda: value


def load(builder):
    from django.db import connection

    from matches.models import Deal, Match, Night, Seat, User

    rows = {
        User: builder.users,
        Night: builder.nights,
        Match: builder.matches,
        Seat: builder.seats,
        Deal: builder.deals,
    }
    with connection.cursor() as cursor:
        raw = cursor.cursor
        for model, data in rows.items():
            table = model._meta.db_table
            columns, fillers = copy_columns(model, FIELDS[model.__name__])
            with raw.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in data:
                    copy.write_row((*row, *(fill() for fill in fillers)))
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"(SELECT max(id) FROM {table}))"
            )
        cursor.execute("ANALYZE")
    return {model._meta.db_table: len(data) for model, data in rows.items()}


# Timing ------------------------------------------------------------------------------


def use(name):
    """Point the one Django connection at this database."""
    from django.db import connection

    connection.close()
    connection.settings_dict["NAME"] = name


def prepare(name, rubbers):
    from django.core.management import call_command

    use(name)
    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    counts = load(build(rubbers))
    return counts, time.perf_counter() - started


def pages_of(name):
    """Ana's three pages in this database, and a client signed in as her."""
    from django.test import Client

    from matches.models import Night, User

    use(name)
    ana = User.objects.get(username="ana")
    night = Night.objects.filter(matches__seats__user=ana).latest("created")
    client = Client()
    client.force_login(ana)
    return client, {
        "history": "/history/",
        "history, filtered": "/history/?result=won&page=2",
        "night": f"/nights/{night.pk}/",
        "standings": "/standings/",
    }


def time_pages(databases, rounds, repeats):
    """Median milliseconds per page and database, the databases taking turns."""
    timings = {}
    for _round in range(rounds):
        for label, name in databases.items():
            client, pages = pages_of(name)
            for page, path in pages.items():
                client.get(path)  # warm: the connection, the templates, the caches
                for _ in range(repeats):
                    started = time.perf_counter()
                    response = client.get(path)
                    elapsed = time.perf_counter() - started
                    assert response.status_code == 200, (label, path, response.status_code)
                    timings.setdefault((page, label), []).append(elapsed * 1000)
    return {key: statistics.median(values) for key, values in timings.items()}


def whole_nights(text):
    rubbers = int(text)
    if rubbers <= ANA_RUBBERS or rubbers % RUBBERS_A_NIGHT:
        raise argparse.ArgumentTypeError(
            f"more than Ana's {ANA_RUBBERS}, in nights of {RUBBERS_A_NIGHT}: not {rubbers}"
        )
    return rubbers


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rubbers", type=whole_nights, default=RUBBERS, help="in the big database")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--keep", action="store_true", help="keep the two databases")
    args = parser.parse_args()

    parts = server_url()
    run = secrets.token_hex(4)
    sizes = {f"{ANA_RUBBERS} rubbers": ANA_RUBBERS, f"{args.rubbers:,} rubbers": args.rubbers}
    databases = dict(zip(sizes, (f"{PREFIX}small_{run}", f"{PREFIX}big_{run}"), strict=True))
    # Django runs against the bench's own database from the start, never the server's.
    os.environ["DATABASE_URL"] = with_database(parts, next(iter(databases.values())))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scoresheet.settings")
    # The development settings, as on both databases alike: the pages find the static
    # files where they are, with nothing collected.
    os.environ.setdefault("DEBUG", "true")
    os.environ.setdefault("DATABASE_STATEMENT_TIMEOUT", "0")  # a COPY of a million rows
    import django

    django.setup()
    from django.conf import settings

    settings.ALLOWED_HOSTS = ["testserver"]
    created = []
    try:
        for label, name in databases.items():
            admin(parts, f'CREATE DATABASE "{name}"')
            created.append(name)
            counts, seconds = prepare(name, sizes[label])
            print(
                f"{label}: {counts['matches_match']:,} rubbers, {counts['matches_deal']:,} deals,"
                f" {counts['matches_seat']:,} seats, {counts['matches_user']:,} players,"
                f" {counts['matches_night']:,} nights, built in {seconds:.1f} s"
            )
        medians = time_pages(databases, args.rounds, args.repeats)
    finally:
        from django.db import connection

        connection.close()
        if not args.keep:
            for name in created:
                assert name.startswith(PREFIX)
                admin(parts, f'DROP DATABASE IF EXISTS "{name}"')

    small, big = databases
    print(f"\n{'page':<20}{small:>14}{big:>18}{'ratio':>8}")
    worst = 0
    for page in ("history", "history, filtered", "night", "standings"):
        ratio = medians[(page, big)] / medians[(page, small)]
        worst = max(worst, ratio)
        print(
            f"{page:<20}{medians[(page, small)]:>11.1f} ms{medians[(page, big)]:>15.1f} ms"
            f"{ratio:>7.2f}×"
        )
    print(f"\nmedians of {args.rounds} × {args.repeats} requests each, in one process")
    if worst > 2:
        print(f"FAIL: a page is {worst:.2f}× slower on the big database (2× allowed)")
        return 1
    print(f"OK: every page within 2× (worst {worst:.2f}×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
