"""Exactly once, on PostgreSQL: many phones writing to one sheet at the same moment.

Each round releases 24 clients together (a Barrier), each on its own database
connection, through the real API: in this process, and then through two
gunicorn instances on different ports sharing the one database, which proves
the app keeps nothing in a process that the race depends on.

The clients keep their own account of what was accepted. It must match the
database exactly: the version moved once per accepted change, every accepted
change is one event in the history and no refused one is, the totals are the
sum of the accepted entries still standing, no deal is stored twice, and every
refusal was a 4xx with a message.
"""

import threading
import uuid
from collections import Counter

import pytest
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from matches import rules
from matches.models import Deal, Event, Match

from .conftest import SEAT_NAMES
from .servers import Gunicorn, database_url, request

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("races")]

CLIENTS = 24


@pytest.fixture
def tokens(ana, rui, ze, maria):
    return {user.username: Token.objects.create(user=user).key for user in (ana, rui, ze, maria)}


def seated(ana, rui, ze, maria):
    match = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    for user, position in ((rui, "a2"), (ze, "b1"), (maria, "b2")):
        match.join(user, token=match.join_token, position=position)
    return match


@pytest.fixture
def table(ana, rui, ze, maria):
    return seated(ana, rui, ze, maria)


# Transports: the same requests in this process or over HTTP -------------------------


def in_process(tokens):
    def send(index, who, method, path, body, key=None):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {tokens[who]}")
        extra = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
        response = getattr(client, method.lower())(path, body, format="json", **extra)
        return response.status_code, response.json() if response.content else None

    return send


def over_http(tokens, ports):
    def send(index, who, method, path, body, key=None):
        # Clients alternate between the servers: neighbours in a race hit different ones.
        headers = {"Idempotency-Key": key} if key else None
        port = ports[index % len(ports)]
        return request(port, method, path, body, token=tokens[who], headers=headers)

    return send


def retried(send, times=3):
    """Each request sent ``times`` times at once with one key, as a phone retrying a
    tap on a bad network (each copy on its own connection, and over two servers on
    different ones): the copies all get the same answer, which counts once."""

    def send_retried(index, who, method, path, body):
        key = f"tap-{index}-{uuid.uuid4()}"
        answers = [None] * times

        def copy(number):
            answers[number] = send(index + number, who, method, path, body, key=key)
            connection.close()

        copies = [threading.Thread(target=copy, args=(number,)) for number in range(times)]
        for thread in copies:
            thread.start()
        for thread in copies:
            thread.join()
        assert all(answer == answers[0] for answer in answers), answers
        return answers[0]

    return send_retried


@pytest.fixture
def two_servers(tokens):
    database = database_url(connection.settings_dict)
    servers = [Gunicorn(database), Gunicorn(database)]
    try:
        for server in servers:
            server.wait_ready()
        yield [server.port for server in servers]
    finally:
        for server in servers:
            server.stop()


# The race ---------------------------------------------------------------------------


class Ledger:
    """What the clients were told: every accepted change, and every refusal."""

    def __init__(self):
        self.accepted = []  # (version, kind, detail)
        self.refused = []  # (status, detail)

    def note(self, kind, request_body, status, body):
        assert status < 500, (status, body)
        if status in (200, 201):
            self.accepted.append((body["version"], kind, request_body))
        else:
            assert 400 <= status < 500, (status, body)
            assert body and body["detail"], (status, body)
            self.refused.append((status, body["detail"]))


def race(send, ledger, calls):
    """Every (who, kind, method, path, body) sent from its own thread, released together."""
    barrier = threading.Barrier(len(calls))
    outcomes = [None] * len(calls)

    def run(index, who, kind, method, path, body):
        try:
            barrier.wait(timeout=20)
            outcomes[index] = (kind, body, *send(index, who, method, path, body))
        except Exception as error:
            outcomes[index] = error
        finally:
            connection.close()  # this thread's own connection

    threads = [
        threading.Thread(target=run, args=(index, *call)) for index, call in enumerate(calls)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    for outcome in outcomes:
        assert not isinstance(outcome, Exception), outcome
        ledger.note(*outcome)
    return outcomes


def entry(who, deal, side, games):
    body = {"deal": deal, "side": side, "games": games}
    return (who, "entry", "POST", None, body)


def undo(who):
    return (who, "undo", "POST", None, {})


def at(match, calls):
    paths = {"entry": f"/api/matches/{match.pk}/entries/", "undo": f"/api/matches/{match.pk}/undo/"}
    return [(who, kind, method, paths[kind], body) for who, kind, method, _, body in calls]


def current_deal(match):
    return rules.current_deal(Match.objects.get(pk=match.pk).sheet())


def check_the_books(match, ledger):
    """The database holds exactly what the clients were told was accepted."""
    match = Match.objects.get(pk=match.pk)
    # No change lost and none counted twice: the version moved once per accepted change.
    assert match.version == 1 + 3 + len(ledger.accepted)  # the start, three joins, the race

    # The history: one event per accepted change, and none for a refused one.
    events = list(
        match.events.filter(action__in=(Event.ENTRY, Event.UNDO))
        .order_by("id")
        .values_list("action", "deal", "after")
    )
    told = Counter(
        (body["deal"], body["side"], body["games"])
        for _version, kind, body in ledger.accepted
        if kind == "entry"
    )
    logged = Counter(
        (deal, after["side"], after[after["side"]])
        for action, deal, after in events
        if action == Event.ENTRY
    )
    assert logged == told
    undos = sum(kind == "undo" for _version, kind, _body in ledger.accepted)
    assert sum(action == Event.UNDO for action, _deal, _after in events) == undos

    # Replay the history: each undo takes back the newest entry still standing.
    standing = []
    for action, deal, after in events:
        if action == Event.ENTRY:
            standing.append({"deal": deal, "side": after["side"], "games": after[after["side"]]})
        else:
            assert standing.pop()["deal"] == deal
    games = {side: sum(e["games"] for e in standing if e["side"] == side) for side in "ab"}
    assert (match.games_a, match.games_b) == (games["a"], games["b"])

    # No deal stored twice, no gap, and each cell as the standing entries left it.
    numbers = list(Deal.objects.filter(match=match).values_list("number", flat=True))
    assert not [n for n, count in Counter(numbers).items() if count > 1]
    assert sorted(numbers) == list(range(1, len(numbers) + 1))
    cells = {(e["deal"], e["side"]): e["games"] for e in standing}
    for deal in Deal.objects.filter(match=match):
        for side in "ab":
            stored = getattr(deal, side)
            if (deal.number, side) in cells:
                assert stored == cells[(deal.number, side)]
            elif stored is not None:
                # The other cell of a deal someone won reads 0 without an entry.
                assert stored == 0 and cells.get((deal.number, rules.other(side)), 0) > 0


def claims(deal):
    """Both sides claim the deal at once, each side's players racing for its cell."""
    side_a = [entry(("ana", "rui")[i % 2], deal, "a", 1) for i in range(CLIENTS // 2)]
    side_b = [entry(("ze", "maria")[i % 2], deal, "b", 1) for i in range(CLIENTS // 2)]
    return [call for pair in zip(side_a, side_b, strict=True) for call in pair]


def alone(send, ledger, match, who, deal, side, games):
    """One entry with nobody racing it."""
    body = {"deal": deal, "side": side, "games": games}
    ledger.note("entry", body, *send(0, who, "POST", f"/api/matches/{match.pk}/entries/", body))


def play_claims_and_last_cells(match, send):
    ledger = Ledger()
    # Round 1: both sides claim deal 1.
    race(send, ledger, at(match, claims(1)))
    assert len(ledger.accepted) == 1
    assert {status for status, _detail in ledger.refused} == {409}
    assert any("is already claimed" in detail for _status, detail in ledger.refused)

    # Round 2: side a says 0 for deal 2, then side b (and the host) race for the last cell.
    alone(send, ledger, match, "rui", 2, "a", 0)
    last = [entry(("ze", "maria", "ana")[i % 3], 2, "b", i % 2) for i in range(CLIENTS)]
    race(send, ledger, at(match, last))
    assert len(ledger.accepted) == 3
    assert current_deal(match) == 3

    # Round 3: both sides claim deal 3, while two late phones still send deal 2.
    late = [entry("maria", 2, "b", 1), entry("rui", 2, "a", 1)]
    race(send, ledger, at(match, claims(3)[: CLIENTS - 2] + late))
    assert len(ledger.accepted) == 4
    assert len(ledger.refused) == 3 * (CLIENTS - 1)
    assert {status for status, _detail in ledger.refused} == {409}
    check_the_books(match, ledger)


def play_undo_against_entry(match, send, rounds=3):
    ledger = Ledger()
    for _round in range(rounds):
        if Match.objects.get(pk=match.pk).status != Match.IN_PLAY:
            break
        deal = current_deal(match)
        alone(send, ledger, match, "rui", deal, "a", 1)
        # Rui (the author) and Ana (the host) undo while Zé and Maria enter the next deal.
        calls = []
        for i in range(CLIENTS // 2):
            calls.append(undo(("rui", "ana", "rui")[i % 3]))
            calls.append(entry(("ze", "maria")[i % 2], deal + 1, "b", 1))
        race(send, ledger, at(match, calls))
        check_the_books(match, ledger)
    kinds = Counter(kind for _version, kind, _body in ledger.accepted)
    assert kinds["undo"] >= 1  # the host can always take back the newest entry
    assert {status for status, _detail in ledger.refused} <= {403, 409}


# The tests ----------------------------------------------------------------------------


def test_claims_and_last_cells_through_the_api(table, tokens):
    play_claims_and_last_cells(table, in_process(tokens))


def test_undo_against_entry_through_the_api(table, tokens):
    play_undo_against_entry(table, in_process(tokens))


def test_claims_and_undos_across_two_servers_sharing_the_database(
    ana, rui, ze, maria, tokens, two_servers
):
    send = over_http(tokens, two_servers)
    play_claims_and_last_cells(seated(ana, rui, ze, maria), send)
    play_undo_against_entry(seated(ana, rui, ze, maria), send)


def test_claims_and_undos_retried_with_their_keys(table, tokens, ana, rui, ze, maria):
    send = retried(in_process(tokens))
    play_claims_and_last_cells(table, send)
    play_undo_against_entry(seated(ana, rui, ze, maria), send)


def test_claims_retried_with_their_keys_across_two_servers(
    ana, rui, ze, maria, tokens, two_servers
):
    play_claims_and_last_cells(seated(ana, rui, ze, maria), retried(over_http(tokens, two_servers)))


def test_one_request_repeated_twenty_times_at_once_across_two_servers(
    ana, rui, ze, maria, tokens, two_servers
):
    match = seated(ana, rui, ze, maria)
    path = f"/api/matches/{match.pk}/entries/"
    send = retried(over_http(tokens, two_servers), times=20)
    status, body = send(0, "rui", "POST", path, {"deal": 1, "side": "a", "games": 1})
    assert status == 201
    assert body["version"] == match.version + 1
    assert Event.objects.filter(match=match, action=Event.ENTRY).count() == 1
