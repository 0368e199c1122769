"""The embedded default holds two phones writing at once: on SQLite, one waits, none fails.

Real servers on a fresh SQLite file of their own, as ``bin/run`` makes it: gunicorn
(2 workers × 4 threads, the production settings) and ``manage.py runserver`` (the
development settings, a thread per request, as ``bin/run`` serves). Everything goes
through the API, from threads released together, so this test process never touches
that database: the suite's own database (PostgreSQL under bin/test) plays no part.

Every answer must be below 500: a writer that finds the database busy waits its turn
(immediate transactions and a busy timeout, scoresheet/settings.py) and then gets the
answer it would have got alone. Afterwards the sheet holds exactly what was accepted.
"""

import shutil
import threading
import uuid
from collections import Counter

import pytest

from .conftest import SEAT_NAMES
from .servers import Gunicorn, Runserver, request, sqlite_database

SAME_DEAL_ROUNDS = 15
TWO_MATCH_ROUNDS = 10
COPIES = 20
# Each side wins at most three deals of a rubber here, so none is ever won (4 games)
# and every refusal below is about the deal, not a rubber that is over.
ROUNDS_A_RUBBER = 3


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    """One migrated SQLite file, copied for each server (migrating takes a few seconds)."""
    folder = tmp_path_factory.mktemp("sqlite")
    sqlite_database(folder)
    return folder / "db.sqlite3"


@pytest.fixture(scope="module", params=["gunicorn", "runserver"])
def server(request, migrated, tmp_path_factory):
    database = tmp_path_factory.mktemp(request.param) / "db.sqlite3"
    shutil.copyfile(migrated, database)
    url = f"sqlite:///{database}"
    running = Gunicorn(url, workers=2, threads=4) if request.param == "gunicorn" else Runserver(url)
    try:
        yield running.wait_ready()
    finally:
        running.stop()


class Table:
    """Four guests, seated through the API alone, who start rubbers and send entries."""

    def __init__(self, port):
        self.port = port
        self.tokens = {}
        for seat, name in SEAT_NAMES.items():
            status, body = request(port, "POST", "/api/auth/guest/", {"name": name})
            assert status == 201, (status, body)
            self.tokens[seat] = body["token"]

    def send(self, seat, method, path, body=None, key=None):
        headers = {"Idempotency-Key": key} if key else None
        return request(
            self.port, method, path, body, token=self.tokens[seat], timeout=40, headers=headers
        )

    def new_match(self):
        """A rubber hosted by a1, every seat taken: its id."""
        status, match = self.send(
            "a1", "POST", "/api/matches/", {"seats": SEAT_NAMES, "host_seat": "a1"}
        )
        assert status == 201, (status, match)
        for seat in ("a2", "b1", "b2"):
            body = {"token": match["join_token"], "seat": seat}
            status, joined = self.send(seat, "POST", f"/api/matches/{match['id']}/join/", body)
            assert status == 200, (status, joined)
        return match["id"]

    def sheet(self, match):
        status, body = self.send("a1", "GET", f"/api/matches/{match}/")
        assert status == 200, (status, body)
        return body

    def entry(self, seat, match, deal, side, games=1, key=None):
        body = {"deal": deal, "side": side, "games": games}
        return (seat, "POST", f"/api/matches/{match}/entries/", body, key)


@pytest.fixture(scope="module")
def table(server):
    return Table(server.port)


def at_once(table, calls):
    """Each (seat, method, path, body, key) from its own thread, released together:
    the (status, body) answers in the same order."""
    barrier = threading.Barrier(len(calls))
    answers = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait(timeout=20)
            answers[index] = table.send(*call)
        except Exception as error:
            answers[index] = error

    threads = [threading.Thread(target=run, args=item) for item in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    for answer in answers:
        assert not isinstance(answer, Exception), answer
    return answers


def failures(answers):
    return [(status, body) for status, body in answers if status >= 500]


def assert_books(table, match, won, accepted):
    """The sheet holds what its clients were told: the totals are the games of the
    accepted entries, one complete deal each, the version moved once per entry."""
    sheet = table.sheet(match)
    assert sheet["status"] == "in_play", sheet
    assert {side: sheet["sides"][side]["games"] for side in "ab"} == {
        side: won[side] for side in "ab"
    }
    assert len(sheet["deals"]) == accepted
    assert all(deal["complete"] for deal in sheet["deals"]), sheet["deals"]
    assert sheet["version"] == 1 + 3 + accepted  # the start, three joins, the entries


def test_two_entries_for_the_same_deal_get_one_201_and_one_409(table, server):
    """Two phones enter the same deal at the same moment: both sides claiming it, or
    the same cell twice. The first is recorded, the second told "already recorded"
    (or named the first claim); neither is a 500 "database is locked"."""
    answers, rounds, books = [], [], {}
    for number in range(SAME_DEAL_ROUNDS):
        if number % ROUNDS_A_RUBBER == 0:
            match = table.new_match()
            books[match] = Counter()
        deal = table.sheet(match)["current_deal"]
        if number % 2 == 0:  # both sides claim the deal
            calls = [table.entry("a1", match, deal, "a"), table.entry("b1", match, deal, "b")]
        else:  # both players of a side fill its cell
            side = "ab"[number // 2 % 2]
            calls = [table.entry(f"{side}{n}", match, deal, side) for n in (1, 2)]
        # A third phone reads the sheet meanwhile, as the poll does.
        calls.append(("b2", "GET", f"/api/matches/{match}/", None, None))
        round_answers = at_once(table, calls)
        answers += round_answers
        rounds.append((match, calls, round_answers))

    broken = failures(answers)
    assert not broken, (
        f"{len(broken)} of {len(answers)} answers were 5xx on {server.name}: {broken[:3]}\n"
        f"{server.output()}"
    )
    for match, calls, (first, second, read) in rounds:
        assert read[0] == 200, read
        assert sorted([first[0], second[0]]) == [201, 409], (first, second)
        refused = first if first[0] == 409 else second
        assert refused[1]["detail"], refused
        recorded = calls[0] if first[0] == 201 else calls[1]
        books[match][recorded[3]["side"]] += recorded[3]["games"]
    for match, won in books.items():
        assert_books(table, match, won, sum(won.values()))


def test_entries_on_two_matches_at_the_same_moment_are_both_recorded(table, server):
    """Two tables, one database: entries on different rubbers at the same moment
    both go in (201), one after the other."""
    answers, books = [], {}
    for number in range(TWO_MATCH_ROUNDS):
        if number % ROUNDS_A_RUBBER == 0:
            matches = [table.new_match(), table.new_match()]
            books.update({match: Counter() for match in matches})
        side = "ab"[number % 2]
        calls = [
            table.entry(f"{side}1", match, table.sheet(match)["current_deal"], side)
            for match in matches
        ]
        round_answers = at_once(table, calls)
        answers += round_answers
        for (status, _body), call in zip(round_answers, calls, strict=True):
            if status == 201:
                books[int(call[2].split("/")[3])][side] += 1

    broken = failures(answers)
    assert not broken, (
        f"{len(broken)} of {len(answers)} answers were 5xx on {server.name}: {broken[:3]}\n"
        f"{server.output()}"
    )
    assert [status for status, _body in answers] == [201] * len(answers), answers
    for match, won in books.items():
        assert_books(table, match, won, sum(won.values()))


def test_one_tap_sent_twenty_times_at_once_with_its_key_counts_once(table, server):
    """A phone retrying one tap over a bad network: the same request, the same
    Idempotency-Key, twenty copies at once. Every copy gets the first answer, and the
    sheet changed once."""
    match = table.new_match()
    before = table.sheet(match)
    key = f"tap-{uuid.uuid4()}"
    call = table.entry("a1", match, before["current_deal"], "a", games=2, key=key)
    answers = at_once(table, [call] * COPIES)

    broken = failures(answers)
    assert not broken, (
        f"{len(broken)} of {len(answers)} answers were 5xx on {server.name}: {broken[:3]}\n"
        f"{server.output()}"
    )
    assert answers[0][0] == 201, answers[0]
    assert all(answer == answers[0] for answer in answers), Counter(s for s, _b in answers)
    assert_books(table, match, {"a": 2, "b": 0}, 1)
    status, history = table.send("a1", "GET", f"/api/matches/{match}/history/")
    assert status == 200, (status, history)
    entries = [event for event in history if event["action"] == "entry"]
    assert len(entries) == 1, history


def test_ten_rematches_at_once_start_one_next_rubber(table, server):
    match = table.new_match()
    status, _body = table.send("a1", "POST", f"/api/matches/{match}/end/", {})
    assert status == 200
    answers = at_once(table, [("a1", "POST", f"/api/matches/{match}/rematch/", {}, None)] * 10)
    assert not failures(answers)
    created = [body["id"] for status, body in answers if status == 201]
    refused = [body for status, body in answers if status == 409]
    assert len(created) == 1 and len(refused) == 9, answers
    assert all(body["next"] == created[0] for body in refused)
    assert table.sheet(match)["next"] == created[0]
