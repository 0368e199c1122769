"""Live changes (API.md "Live changes"): every change reaches every open stream of its
sheet, night and watch link within half a second, on every instance.

The wire and the hub are checked in memory; the streams themselves against bin/serve,
as production runs it: two instances on the suite's PostgreSQL (a change made through
one is heard on the other, through LISTEN/NOTIFY), and one on a SQLite file of its own
(in process). A test client (no streaming server) is answered 204, the pages' cue to poll.
"""

import asyncio
import json
import socket
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from rest_framework.authtoken.models import Token

from matches import live
from matches.models import Match

from .conftest import make_user, sessions_ended
from .live import Stream
from .servers import Gunicorn, database_url, request, sqlite_database

HEARTBEAT_MS = 400  # the servers' heartbeat here: an idle stream is heard from quickly
LIVE = {"LIVE_HEARTBEAT_MS": str(HEARTBEAT_MS), "RATE_LIMIT_GUEST": ""}
INSTANCES = "suite-instances"  # what the instances' connections call themselves


# What goes on the wire --------------------------------------------------------------


def test_an_event_carries_its_name_its_version_as_its_id_and_its_data():
    assert live.event("change", {"version": 7}, id=7) == (
        b'id: 7\nevent: change\ndata: {"version": 7}\n\n'
    )


def test_a_heartbeat_is_a_comment_every_proxy_passes_and_a_ping_without_an_id():
    beat = live.heartbeat({"version": 3})
    assert beat.startswith(b": still here\n")
    assert b"id:" not in beat  # a ping never moves the browser's Last-Event-ID
    assert b"event: ping\n" in beat


def test_a_stream_tells_the_browser_to_reconnect_within_a_second():
    assert live.retry() == b"retry: 1000\n\n"


# One process's hub, in memory ---------------------------------------------------------


def run(scene):
    """``scene()`` on an event loop of its own, in a thread of its own: the test's own
    thread may hold Playwright's loop, after the browser tests."""
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, scene()).result()


def notice(match, night, version, seats=False):
    return json.dumps({"match": match, "night": night, "version": version, "seats": seats})


def started(hub, versions):
    """``hub`` on the running loop, its database the ``versions`` of each match:
    {match id: version}. (No listening connection, no resync: the test delivers.)"""
    hub.loop = asyncio.get_running_loop()
    hub.executor = ThreadPoolExecutor(1)
    hub.versions = lambda matches, nights: ({m: versions[m] for m in matches if m in versions}, {})
    return hub


def test_a_notice_wakes_the_streams_of_its_match_and_of_its_night_and_no_other():
    hub = live.Hub()

    async def scene():
        started(hub, {1: 5, 2: 3})
        sheet, other, night = (
            hub.subscribe(live.match_topic(1)),
            hub.subscribe(live.match_topic(2)),
            hub.subscribe(live.night_topic(9)),
        )
        hub.deliver(notice(1, 9, 5))
        assert await sheet.wait(1) and sheet.version == 5 and not sheet.take_check()
        assert await night.wait(1) and night.take_check()  # a night reads its own version
        assert not await other.wait(0.01)

    run(scene)


def test_a_stream_believes_the_version_the_database_shows_not_the_notice():
    hub = live.Hub()
    database = {1: 5}

    async def scene():
        started(hub, database)
        sheet = hub.subscribe(live.match_topic(1))
        sheet.know(5)
        hub.deliver(notice(1, 9, 9007199254740992))  # forged: the database says 5
        assert not await sheet.wait(0.2)
        assert sheet.version == 5
        database[1] = 6  # a real change, and its notice
        hub.deliver(notice(1, 9, 6))
        assert await sheet.wait(1) and sheet.version == 6

    run(scene)


def test_notices_heard_together_are_confirmed_in_one_read():
    hub = live.Hub()
    reads = []

    async def scene():
        started(hub, {})
        hub.versions = lambda matches, nights: reads.append(sorted(matches)) or ({}, {})
        streams = [hub.subscribe(live.match_topic(match)) for match in (1, 2, 3)]
        for match in (1, 2, 3):
            hub.deliver(notice(match, 9, 2))
        for stream in streams:
            assert await stream.wait(1) and stream.take_check()  # gone: read for itself

    run(scene)
    assert reads == [[1, 2, 3]]


def test_a_change_of_seats_has_the_sheets_streams_check_their_readers():
    hub = live.Hub()

    async def scene():
        started(hub, {1: 6})
        sheet = hub.subscribe(live.match_topic(1))
        hub.deliver(notice(1, 9, 6, seats=True))
        assert await sheet.wait(1)
        assert sheet.take_check() and not sheet.take_check()  # once

    run(scene)


@pytest.mark.parametrize(
    "said",
    [
        "not json",
        json.dumps({"match": 1}),
        json.dumps({"match": "1", "night": 9, "version": 2}),
        json.dumps({"match": 1, "night": 9, "version": True}),
        json.dumps({"topic": "tournament 1", "version": 2}),
        json.dumps([1, 9, 2]),
    ],
)
def test_a_notice_that_is_not_ours_is_logged_and_wakes_no_one(said, caplog):
    hub = live.Hub()

    async def scene():
        started(hub, {1: 2})
        sheet = hub.subscribe(live.match_topic(1))
        hub.deliver(said)
        assert not await sheet.wait(0.05)

    run(scene)
    assert caplog.text.count("A notice that is not one of ours") == 1


def test_a_resync_wakes_only_the_streams_that_are_behind():
    hub = live.Hub()

    async def scene():
        behind, current = hub.subscribe(live.match_topic(1)), hub.subscribe(live.match_topic(2))
        behind.know(3)
        current.know(8)
        hub.catch_up({1: 4, 2: 8}, {})
        assert await behind.wait(0.5) and behind.version == 4
        assert current.version == 8 and not await current.wait(0.01)
        hub.unsubscribe(behind)
        hub.unsubscribe(current)
        assert not hub.listeners

    run(scene)


# The view in this process: refusals as the API's, and 204 without a streaming server -


def test_a_resync_has_a_stream_of_several_nights_read_its_own_version():
    hub = live.Hub()

    async def scene():
        tournament = hub.subscribe(("tournament", 1), live.night_topic(8), live.night_topic(9))
        tournament.know(40)  # its own version: more than any one night's
        hub.catch_up({}, {8: 12})
        assert await tournament.wait(1) and tournament.take_check()

    run(scene)


def test_a_server_that_cannot_hold_a_stream_open_answers_204(api_as, match, rui):
    for path in (f"/api/matches/{match.pk}/events/", f"/api/nights/{match.night_id}/events/"):
        assert api_as(rui).get(path).status_code == 204
    assert api_as().get(f"/api/watch/{match.watch_token}/events/").status_code == 204


def test_the_stream_is_refused_as_the_sheet_is(api_as, match):
    path = f"/api/matches/{match.pk}/events/"
    stranger = api_as(make_user("eva", "Eva")).get(path, HTTP_ACCEPT="text/event-stream")
    assert stranger.status_code == 404
    assert stranger["Content-Type"] == "application/json"  # whatever an EventSource accepts
    other_stranger = api_as(make_user("ivo", "Ivo"))
    assert stranger.json() == other_stranger.get(f"/api/matches/{match.pk}/").json()
    assert api_as().get(path).status_code == 401
    assert api_as().get("/api/watch/not-a-link/events/").status_code == 404
    for since in ("soon", "", "-1"):
        assert api_as(match.host).get(path, {"since": since}).status_code == 400
        reconnect = api_as(match.host).get(path, {"since": since}, HTTP_LAST_EVENT_ID="3")
        assert reconnect.status_code == 400
    assert api_as(match.host).get(path, HTTP_LAST_EVENT_ID="-1").status_code == 400


# The streams of bin/serve ---------------------------------------------------------------


@pytest.fixture(scope="module")
def instances(django_db_setup, django_db_blocker):
    """Two instances of bin/serve on the suite's PostgreSQL, one worker each."""
    with django_db_blocker.unblock():
        if connection.vendor != "postgresql":
            pytest.skip("instances share a database on PostgreSQL (bin/test runs this on it)")
        database = database_url(connection.settings_dict, named=INSTANCES)
    servers = [Gunicorn(database, workers=1, threads=2, env=LIVE) for _ in range(2)]
    try:
        yield [server.wait_ready().port for server in servers]
    finally:
        for server in servers:
            server.stop()
        sessions_ended(django_db_blocker, INSTANCES)


@pytest.fixture
def tokens(transactional_db, match):
    users = [seat.user for seat in match.seats.all()]
    return {user.username: Token.objects.create(user=user).key for user in users}


def enter(port, token, match, deal, side, games):
    status, body = request(
        port, "POST", f"/api/matches/{match.pk}/entries/",
        {"deal": deal, "side": side, "games": games}, token=token,
    )  # fmt: skip
    assert status == 201, body
    return body


def test_a_change_through_one_instance_reaches_a_stream_held_on_the_other(instances, match, tokens):
    one, other = instances
    with Stream(other, f"/api/matches/{match.pk}/events/", token=tokens["ze"]) as stream:
        assert stream.status == 200
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        assert "no-cache" in stream.headers["Cache-Control"]
        assert stream.headers["X-Accel-Buffering"] == "no"
        assert stream.next() == ("ping", {"version": match.version}, None)
        taken = []
        for deal, side in enumerate("abab", start=1):
            tapped = time.monotonic()
            body = enter(one, tokens["ana"], match, deal, side, 1)
            change = stream.next_named("change", timeout=2)
            taken.append(time.monotonic() - tapped)
            version = body["version"]
            assert change == ("change", {"version": version}, str(version))
    print(f"\ntap → the other instance's stream: {', '.join(f'{t * 1000:.0f} ms' for t in taken)}")
    assert max(taken) < 0.5


def heard_on_the_channel(do):
    """The notices PostgreSQL carries while ``do()`` runs, as a stranger listening on a
    connection of its own would read them."""
    import psycopg

    params = connection.get_connection_params()
    for django_only in ("cursor_factory", "context", "prepare_threshold"):
        params.pop(django_only, None)
    with psycopg.connect(**params, autocommit=True) as listening:
        listening.execute(f"LISTEN {live.CHANNEL}")
        do()
        return [notice.payload for notice in listening.notifies(timeout=1)]


def test_a_notice_is_a_small_public_hint_ids_and_a_version(instances, match, tokens):
    def change():
        enter(instances[0], tokens["ana"], match, 1, "a", 1)  # an entry
        status, _body = request(
            instances[0], "POST", f"/api/matches/{match.pk}/seats/b2/free/", {},
            token=tokens["ana"],
        )  # fmt: skip
        assert status == 200

    notices = heard_on_the_channel(change)
    assert len(notices) == 2
    said = [json.loads(notice) for notice in notices]
    match.refresh_from_db()
    assert said == [
        {"match": match.pk, "night": match.night_id, "version": match.version - 1},
        {"match": match.pk, "night": match.night_id, "version": match.version, "seats": True},
    ]
    assert all(len(notice) < 100 for notice in notices)


def test_a_forged_notice_misleads_no_stream(instances, match, tokens):
    one, other = instances
    with Stream(other, f"/api/matches/{match.pk}/events/", token=tokens["ze"]) as stream:
        assert stream.next() == ("ping", {"version": match.version}, None)
        forged = notice(match.pk, match.night_id, 9007199254740992)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [live.CHANNEL, forged])
        body = enter(one, tokens["ana"], match, 1, "a", 1)
        assert stream.next_named("change", timeout=2) == (
            "change", {"version": body["version"]}, str(body["version"])
        )  # fmt: skip


def test_a_reconnect_that_missed_changes_gets_the_latest_version_at_once(instances, match, tokens):
    one, other = instances
    with Stream(other, f"/api/matches/{match.pk}/events/", token=tokens["rui"]) as stream:
        seen = stream.next()[1]["version"]
    enter(one, tokens["ana"], match, 1, "a", 1)
    enter(one, tokens["ana"], match, 2, "a", 1)
    latest = Match.objects.version(pk=match.pk)
    path = f"/api/matches/{match.pk}/events/"
    with Stream(other, path, token=tokens["rui"], headers={"Last-Event-ID": str(seen)}) as again:
        assert again.next(timeout=1) == ("change", {"version": latest}, str(latest))
    with Stream(other, f"{path}?since={latest}", token=tokens["rui"]) as current:
        assert current.next(timeout=1) == ("ping", {"version": latest}, None)


def test_an_idle_stream_hears_a_heartbeat_every_so_often(instances, match, tokens):
    with Stream(instances[0], f"/api/matches/{match.pk}/events/", token=tokens["maria"]) as stream:
        started = time.monotonic()
        beats = [stream.next(timeout=2) for _ in range(3)]
        lasted = time.monotonic() - started
    assert [name for name, _data, _id in beats] == ["ping"] * 3
    assert stream.comments == ["still here"] * 3
    assert 2 * HEARTBEAT_MS / 1000 * 0.9 <= lasted < 4 * HEARTBEAT_MS / 1000


def test_a_player_whose_seat_is_freed_loses_the_sheets_stream(instances, match, tokens):
    one, other = instances
    with Stream(other, f"/api/matches/{match.pk}/events/", token=tokens["maria"]) as stream:
        stream.next()
        status, body = request(
            one, "POST", f"/api/matches/{match.pk}/seats/b2/free/", {}, token=tokens["ana"]
        )
        assert status == 200, body
        assert stream.next_named("change", timeout=2) is None  # the stream ended


def test_the_watch_links_stream_follows_the_night_to_its_next_rubber(instances, match, tokens):
    one, other = instances
    with Stream(other, f"/api/watch/{match.watch_token}/events/") as stream:
        name, data, _id = stream.next()
        assert (name, data["rubber"]) == ("ping", match.pk)
        enter(one, tokens["ana"], match, 1, "a", 4)  # a bandeira: the rubber is won
        assert stream.next_named("change", timeout=2)[1]["rubber"] == match.pk
        status, body = request(
            one, "POST", f"/api/matches/{match.pk}/rematch/", {"seats": None}, token=tokens["ana"]
        )
        assert status == 201, body
        assert stream.next_named("change", timeout=2)[1]["rubber"] == body["id"]


def test_the_projectors_stream_hears_each_round_and_every_table(instances, match, tokens):
    one, other = instances
    body = {"name": "Torneio", "pairs": [["Ana", "Rui"], ["Zé", "Maria"], ["Inês", "Tiago"],
            ["Bia", "Duarte"]], "tables": 2, "mocas_to_win": 1}  # fmt: skip
    status, tournament = request(one, "POST", "/api/tournaments/", body, token=tokens["ana"])
    assert status == 201, tournament
    path = f"/api/tournaments/watch/{tournament['watch_token']}/events/"
    with (
        Stream(other, path) as projector,
        Stream(other, f"/api/tournaments/{tournament['id']}/events/", token=tokens["ana"]) as own,
    ):
        assert projector.next()[0] == "ping" and own.next()[0] == "ping"
        status, drawn = request(
            one, "POST", f"/api/tournaments/{tournament['id']}/rounds/", {}, token=tokens["ana"]
        )
        assert status == 201, drawn
        assert projector.next_named("change", timeout=2) and own.next_named("change", timeout=2)
        rubber = drawn["rounds"][0]["series"][1]["current_match"]
        tapped = time.monotonic()
        status, sheet = request(
            one, "POST", f"/api/matches/{rubber}/entries/",
            {"deal": 1, "side": "b", "games": 2}, token=tokens["ana"],
        )  # fmt: skip
        assert status == 201, sheet
        _name, data, _id = projector.next_named("change", timeout=2)
        took = (time.monotonic() - tapped) * 1000
        print(f"\na tap at table 2 → the projector's stream: {took:.0f} ms")
        status, now = request(
            one, "GET", f"/api/tournaments/{tournament['id']}/", token=tokens["ana"]
        )
        assert data["version"] == now["version"]
    with Stream(
        other, f"/api/tournaments/{tournament['id']}/events/", token=tokens["ze"]
    ) as not_his:
        assert not_his.status == 404


# A server that slow clients don't hold up ----------------------------------------------


def test_idle_and_half_sent_connections_leave_a_real_request_answered_at_once(instances):
    port = instances[0]
    held = []
    try:
        for _ in range(20):
            held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        for _ in range(4):
            half = socket.create_connection(("127.0.0.1", port), timeout=5)
            half.sendall(b"GET /api/calculator/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: ")
            held.append(half)
        time.sleep(0.2)  # every one of them reached the server first
        answered = []
        for _ in range(3):
            started = time.monotonic()
            status, _body = request(port, "GET", "/api/calculator/", timeout=5)
            answered.append(time.monotonic() - started)
            assert status == 405
        print(f"\nbeside 24 slow connections, answered in {max(answered) * 1000:.0f} ms at most")
        assert max(answered) < 1
    finally:
        for sock in held:
            sock.close()


# On SQLite: one process, whose own changes reach its streams ----------------------------


@pytest.fixture(scope="module")
def on_sqlite():
    with tempfile.TemporaryDirectory(prefix="squarescores-live-") as folder:
        server = Gunicorn(sqlite_database(folder), env=LIVE)
        try:
            yield server.wait_ready().port
        finally:
            server.stop()


def test_on_sqlite_a_change_reaches_the_streams_of_the_one_process(on_sqlite):
    status, guest = request(on_sqlite, "POST", "/api/auth/guest/", {"name": "Ana"})
    assert status == 201, guest
    token = guest["token"]
    seats = {"a1": "Ana", "a2": "Rui", "b1": "Zé", "b2": "Maria"}
    status, made = request(
        on_sqlite, "POST", "/api/matches/", {"seats": seats, "host_seat": "a1"}, token=token
    )
    assert status == 201, made
    with Stream(on_sqlite, f"/api/matches/{made['id']}/events/", token=token) as stream:
        assert stream.next()[0] == "ping"
        tapped = time.monotonic()
        status, body = request(
            on_sqlite, "POST", f"/api/matches/{made['id']}/entries/",
            {"deal": 1, "side": "a", "games": 1}, token=token,
        )  # fmt: skip
        assert status == 201, body
        assert stream.next_named("change", timeout=2)[1] == {"version": body["version"]}
        assert time.monotonic() - tapped < 0.5


@pytest.fixture(scope="module")
def capped(django_db_setup, django_db_blocker):
    """bin/serve, one worker, whose streams are capped at 2 a person and 3 an address."""
    with django_db_blocker.unblock():
        if connection.vendor != "postgresql":
            pytest.skip("bin/serve on the suite's PostgreSQL (bin/test runs this on it)")
        database = database_url(connection.settings_dict, named="suite-capped")
    caps = {"LIVE_STREAMS_PER_PERSON": "2", "LIVE_STREAMS_PER_ADDRESS": "3"}
    server = Gunicorn(database, workers=1, threads=2, env={**LIVE, **caps})
    try:
        yield server.wait_ready().port
    finally:
        server.stop()
        sessions_ended(django_db_blocker, "suite-capped")


def test_open_streams_are_capped_per_person_and_per_address(capped, match, tokens):
    path = f"/api/matches/{match.pk}/events/"
    watch = f"/api/watch/{match.watch_token}/events/"
    first, second = (Stream(capped, path, token=tokens["ze"]) for _ in "12")
    try:
        assert first.next()[0] == second.next()[0] == "ping"  # both open, and counted
        third = Stream(capped, path, token=tokens["ze"])
        assert third.status == 429
        assert "too many live sheets" in third.body()["detail"]
        assert int(third.headers["Retry-After"]) > 0
        with Stream(capped, path, token=tokens["maria"]) as marias:
            assert marias.status == 200 and marias.next()[0] == "ping"
            anyone = Stream(capped, watch)
            assert anyone.status == 429  # the address holds three already
            anyone.close()
        first.close()
        time.sleep(0.3)  # the server sees it go
        with Stream(capped, path, token=tokens["ze"]) as again:
            assert again.status == 200
    finally:
        first.close()
        second.close()
