"""Limits on log-ins and guest accounts that hold: per client address, whatever the
client writes in its headers, one count for the pages, the API and the admin, and
one count for every worker of every instance (the counters live in the database)."""

import base64
import datetime
import pickletools
import re
import time

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.settings import api_settings

from matches import limits as limiting
from matches.models import LimitCount, User

from .pages import HTMX, browser, text
from .servers import Gunicorn, database_url, request
from .test_concurrency import at_once

WRONG = {"username": "ana", "password": "guess"}
RIGHT = {"username": "ana", "password": "sueca-na-mesa-42"}


class Clock:
    """The limits' clock, pinned half an hour and half a minute into the hour: a
    test's attempts fall in one window of a minute or of an hour."""

    monotonic = staticmethod(time.monotonic)

    def __init__(self):
        self.now = (time.time() // 3600) * 3600 + 30 * 60 + 30

    def time(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    pinned = Clock()
    monkeypatch.setattr(limiting, "time", pinned)
    return pinned


@pytest.fixture
def limits(settings, clock, db):
    settings.RATE_LIMITS = {"login": "3/minute", "guest": "3/hour"}
    LimitCount.objects.all().delete()
    return settings.RATE_LIMITS


def spoofed(attempt):
    """A new X-Forwarded-For for each attempt, as a client rotating it would send."""
    return {"HTTP_X_FORWARDED_FOR": f"198.51.100.{attempt}"}


# Counted per address ------------------------------------------------------------------


def test_guest_accounts_through_the_api_are_limited_per_address(api_as, db, limits):
    client = api_as()
    for name in ("Ana", "Rui", "Zé"):
        assert client.post("/api/auth/guest/", {"name": name}, format="json").status_code == 201
    refused = client.post("/api/auth/guest/", {"name": "Maria"}, format="json")
    assert refused.status_code == 429
    assert refused.json()["detail"].startswith("Too many attempts from your address: try again in")
    assert int(refused["Retry-After"]) > 0
    assert not User.objects.filter(display_name="Maria").exists()
    elsewhere = client.post(
        "/api/auth/guest/", {"name": "Maria"}, format="json", REMOTE_ADDR="10.0.0.9"
    )
    assert elsewhere.status_code == 201


def test_log_in_through_the_api_is_limited_even_with_the_right_password(api_as, ana, limits):
    client = api_as()
    for _ in range(3):
        assert client.post("/api/auth/token/", WRONG, format="json").status_code == 400
    refused = client.post("/api/auth/token/", RIGHT, format="json")
    assert refused.status_code == 429
    assert "Too many attempts" in refused.json()["detail"]
    assert "token" not in refused.json()


def test_log_in_page_is_limited_with_a_message(client, ana, limits):
    for _ in range(3):
        assert client.post("/accounts/login/", WRONG).status_code == 400  # the form again
    refused = client.post("/accounts/login/", RIGHT)
    assert refused.status_code == 429
    assert "Too many attempts from your address" in text(refused)
    assert "_auth_user_id" not in client.session
    assert client.get("/accounts/login/").status_code == 200  # reading the form is free


def test_guest_page_is_limited_with_a_message_also_for_htmx(client, db, limits):
    for name in ("Ana", "Rui", "Zé"):
        assert client.post("/guest/", {"name": name}).status_code == 302
    refused = client.post("/guest/", {"name": "Maria"}, **HTMX)
    assert refused.status_code == 429
    assert "Too many attempts from your address" in text(refused)
    assert User.objects.count() == 3


def test_the_pages_and_the_api_share_one_count(client, api_as, db, limits):
    assert client.post("/guest/", {"name": "Ana"}).status_code == 302
    assert api_as().post("/api/auth/guest/", {"name": "Rui"}, format="json").status_code == 201
    assert browser().post("/accounts/signup/", {}).status_code == 400  # refused, yet counted
    assert api_as().post("/api/auth/guest/", {"name": "Zé"}, format="json").status_code == 429


def test_joining_as_a_newcomer_counts_as_a_guest_account(client, match, limits):
    match.seats.filter(position="b2").update(user=None)
    for name in ("Ana", "Rui", "Zé"):
        made = client.post("/api/auth/guest/", {"name": name}, content_type="application/json")
        assert made.status_code == 201
    refused = client.post(f"/join/{match.join_token}/", {"seat": "b2", "name": "Maria"})
    assert refused.status_code == 429
    assert match.seats.get(position="b2").user is None


def test_signed_in_players_joining_are_not_counted(match, olga, limits):
    match.seats.filter(position="b2").update(user=None)
    for _ in range(3):
        browser().post("/guest/", {"name": "Tó"})
    joined = browser(olga).post(f"/join/{match.join_token}/", {"seat": "b2"})
    assert joined.status_code == 302
    assert match.seats.get(position="b2").user == olga


def test_limits_are_off_in_the_rest_of_the_suite(settings):
    assert settings.RATE_LIMITS == {}


# Whatever the client writes -----------------------------------------------------------


def test_no_proxy_is_trusted_by_default(settings):
    assert settings.TRUSTED_PROXIES == 0
    assert api_settings.NUM_PROXIES == 0


def test_a_new_x_forwarded_for_each_time_does_not_pass_the_log_in_page(client, ana, limits):
    for attempt in range(3):
        assert client.post("/accounts/login/", WRONG, **spoofed(attempt)).status_code == 400
    refused = client.post("/accounts/login/", RIGHT, **spoofed(3))
    assert refused.status_code == 429
    assert "_auth_user_id" not in client.session


def test_a_new_x_forwarded_for_each_time_does_not_pass_the_api_log_in(api_as, ana, limits):
    client = api_as()
    for attempt in range(3):
        wrong = client.post("/api/auth/token/", WRONG, format="json", **spoofed(attempt))
        assert wrong.status_code == 400
    refused = client.post("/api/auth/token/", RIGHT, format="json", **spoofed(3))
    assert refused.status_code == 429
    assert "token" not in refused.json()


def test_a_new_x_forwarded_for_each_time_makes_no_more_guests(client, api_as, db, limits):
    assert client.post("/guest/", {"name": "Ana"}, **spoofed(0)).status_code == 302
    made = api_as().post("/api/auth/guest/", {"name": "Rui"}, format="json", **spoofed(1))
    assert made.status_code == 201
    assert client.post("/guest/", {"name": "Zé"}, **spoofed(2)).status_code == 302
    refused = api_as().post("/api/auth/guest/", {"name": "Maria"}, format="json", **spoofed(3))
    assert refused.status_code == 429
    assert client.post("/guest/", {"name": "Maria"}, **spoofed(4)).status_code == 429
    assert User.objects.count() == 3


def test_unset_num_proxies_still_trusts_no_header(settings, api_as, ana, limits):
    """DRF alone would take the whole X-Forwarded-For when NUM_PROXIES is None."""
    settings.REST_FRAMEWORK = {
        key: value for key, value in settings.REST_FRAMEWORK.items() if key != "NUM_PROXIES"
    }
    assert api_settings.NUM_PROXIES is None
    client = api_as()
    for attempt in range(3):
        client.post("/api/auth/token/", WRONG, format="json", **spoofed(attempt))
    refused = client.post("/api/auth/token/", RIGHT, format="json", **spoofed(3))
    assert refused.status_code == 429


def test_behind_one_proxy_the_address_it_saw_counts(settings, api_as, ana, limits):
    """The proxy appends the address it saw; whatever the client wrote before it is
    the client's word, and a new one each time changes nothing."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    client = api_as()
    proxy = {"REMOTE_ADDR": "10.0.0.2"}

    def via_proxy(attempt, seen="203.0.113.7"):
        return {**proxy, "HTTP_X_FORWARDED_FOR": f"198.51.100.{attempt}, {seen}"}

    for attempt in range(3):
        wrong = client.post("/api/auth/token/", WRONG, format="json", **via_proxy(attempt))
        assert wrong.status_code == 400
    assert client.post("/api/auth/token/", RIGHT, format="json", **via_proxy(3)).status_code == 429
    # Another player behind the same proxy is another address.
    other = client.post("/api/auth/token/", RIGHT, format="json", **via_proxy(4, "203.0.113.8"))
    assert other.status_code == 200


# The admin's log-in ------------------------------------------------------------------


@pytest.fixture
def staff(ana):
    ana.is_staff = ana.is_superuser = True
    ana.save(update_fields=["is_staff", "is_superuser"])
    return ana


def test_the_admin_log_in_is_limited_even_with_the_right_password(client, staff, limits):
    url = reverse("admin:login")
    assert url == "/admin/login/"
    for _ in range(3):
        wrong = client.post(url, {**WRONG, "next": "/admin/"})
        assert wrong.status_code == 200  # the admin's form again
        assert "_auth_user_id" not in client.session
    refused = client.post(url, {**RIGHT, "next": "/admin/"})
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Too many attempts from your address" in text(refused)
    assert "_auth_user_id" not in client.session
    assert client.get(url).status_code == 200  # reading the form is free


def test_the_admin_and_the_site_share_one_log_in_count(client, staff, api_as, limits):
    assert client.post("/accounts/login/", WRONG).status_code == 400
    assert api_as().post("/api/auth/token/", WRONG, format="json").status_code == 400
    assert client.post("/admin/login/", WRONG, **spoofed(1)).status_code == 200
    assert client.post("/admin/login/", RIGHT, **spoofed(2)).status_code == 429


def test_the_admin_still_logs_staff_in_under_the_limit(client, staff, limits):
    response = client.post("/admin/login/", {**RIGHT, "next": "/admin/"})
    assert response.status_code == 302
    assert client.get("/admin/").status_code == 200


# One count for every process ---------------------------------------------------------


def test_the_counters_live_in_the_database(api_as, ana, limits, clock):
    """The counts are rows of a table, plain numbers: the same rows for every worker of
    every instance, and a count another process wrote holds here too."""
    client = api_as()
    assert client.post("/api/auth/token/", WRONG, format="json").status_code == 400
    counted = LimitCount.objects.values().get()
    assert counted == {
        "id": counted["id"],
        "scope": "login",
        "address": "127.0.0.1",
        "ends": datetime.datetime.fromtimestamp(clock.now + 30, datetime.UTC),
        "count": 1,
    }
    assert all(isinstance(value, int | str | datetime.datetime) for value in counted.values())
    LimitCount.objects.update(count=3)  # as if from other workers
    assert client.post("/api/auth/token/", RIGHT, format="json").status_code == 429


def test_ended_windows_are_swept_once_a_minute(api_as, ana, limits, clock, monkeypatch):
    monkeypatch.setattr(limiting, "_next_sweep", float("-inf"))
    client = api_as()
    client.post("/api/auth/token/", WRONG, format="json")
    clock.now += 60
    # Within the minute: a count costs no delete of its own.
    client.post("/api/auth/token/", WRONG, format="json")
    assert LimitCount.objects.count() == 2
    monkeypatch.setattr(limiting, "_next_sweep", time.monotonic())
    client.post("/api/auth/token/", WRONG, format="json")
    assert list(LimitCount.objects.values_list("count", flat=True)) == [2]


def a_fresh_window(period, margin=10):
    """Wait, if need be, until ``margin`` seconds or more are left of the window of
    ``period`` seconds: the counts start again at each window's end."""
    left = period - time.time() % period
    if left < margin:
        time.sleep(left)


@pytest.fixture
def shared_database(transactional_db):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: gunicorn cannot share the suite's SQLite in memory")
    return database_url(connection.settings_dict)


def test_two_instances_of_two_workers_share_one_count(shared_database, ana):
    """10/minute let 17 to 20 wrong passwords through 2 instances × 2 workers when each
    process kept its own counters. Attempts alternate between the two instances."""
    env = {"RATE_LIMIT_LOGIN": "3/minute"}
    servers = [Gunicorn(shared_database, workers=2, threads=1, env=env) for _ in range(2)]
    try:
        for server in servers:
            server.wait_ready()
        a_fresh_window(60)
        answers = [
            request(servers[attempt % 2].port, "POST", "/api/auth/token/", WRONG)[0]
            for attempt in range(8)
        ]
        right = request(servers[0].port, "POST", "/api/auth/token/", RIGHT)
    finally:
        for server in servers:
            server.stop()
    assert answers == [400] * 3 + [429] * 5
    assert right[0] == 429


def test_attempts_at_once_are_each_counted(races, transactional_db, limits):
    """Twenty wrong passwords sent together from one address: three get through."""
    attempt = RequestFactory().post("/api/auth/token/", REMOTE_ADDR="203.0.113.9")
    allowed = at_once(*[lambda: limiting.LoginThrottle().allow_request(attempt, None)] * 20)
    assert allowed.count(True) == 3, allowed
    assert allowed.count(False) == 17, allowed


def test_each_window_counts_afresh(api_as, ana, limits, clock):
    client = api_as()
    for _ in range(3):
        assert client.post("/api/auth/token/", WRONG, format="json").status_code == 400
    refused = client.post("/api/auth/token/", WRONG, format="json")
    assert refused.status_code == 429
    assert refused["Retry-After"] == "30"  # the rest of the minute
    clock.now += 30
    assert client.post("/api/auth/token/", RIGHT, format="json").status_code == 200


# Nothing kept as a pickle -------------------------------------------------------------

WRITE = re.compile(r'\s*(?:INSERT INTO|UPDATE|DELETE FROM)\s+"?(\w+)"?', re.IGNORECASE)


def pickled(value):
    """Whether a stored value is a pickle, as bytes or in base64 text (as Django's
    database cache keeps them). Read by its opcodes, never loaded."""
    if isinstance(value, str):
        try:
            value = base64.b64decode(value, validate=True)
        except ValueError:
            return False
    if isinstance(value, memoryview):
        value = value.tobytes()
    if not isinstance(value, bytes) or not value.startswith(b"\x80"):
        return False
    try:
        return [opcode.name for opcode, _, _ in pickletools.genops(value)][-1] == "STOP"
    except ValueError:
        return False


def test_no_count_is_kept_as_a_pickle(api_as, ana, limits):
    """Whoever can write a row that a worker unpickles runs code in every worker: the
    counts are plain numbers, and no cache of Django's (which pickle) keeps them."""
    client = api_as()
    with CaptureQueriesContext(connection) as ran:
        for _ in range(3):
            assert client.post("/api/auth/token/", WRONG, format="json").status_code == 400
        assert client.post("/api/auth/token/", RIGHT, format="json").status_code == 429
    written = {found[1] for query in ran if (found := WRITE.match(query["sql"]))}
    assert written, "the counts are kept somewhere"
    pickles = {}
    with connection.cursor() as cursor:
        for table in written:
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            pickles[table] = [row for row in cursor.fetchall() if any(map(pickled, row))]
    assert not any(pickles.values()), pickles
    assert "limits" not in django_settings.CACHES


# Guessing a link's token, and reading too fast ------------------------------------------


@pytest.fixture
def guess_limit(settings, clock, db):
    settings.RATE_LIMITS = {"guess": "5/minute"}
    LimitCount.objects.all().delete()


def test_tokens_that_open_nothing_are_limited_per_address_then_even_the_right_one_waits(
    guess_limit, match, api_as, olga
):
    for number in range(5):
        assert browser().get(f"/join/wrong-{number}/").status_code == 404
    refused = browser().get(f"/join/{match.join_token}/")
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    assert "Too many attempts" in text(refused)
    # The API's links count against the same address.
    claim = api_as(olga).post(
        f"/api/matches/{match.pk}/seats/b1/claim/", {"token": "x"}, format="json"
    )
    assert claim.status_code == 429
    assert api_as().get("/api/watch/nope/").status_code == 429


def test_a_table_opening_its_own_links_is_never_limited(guess_limit, match, ana):
    for _ in range(20):
        assert browser().get(f"/watch/{match.watch_token}/").status_code == 200


def test_every_link_kind_counts_its_misses(guess_limit, match, api_as, olga):
    misses = [
        lambda: browser().get("/watch/nope/"),
        lambda: browser().get(f"/seat/{match.pk}/b1/nope/"),
        lambda: browser().post("/join/nope/ask/", {"seat": "b1"}),
        lambda: api_as(olga).post(
            f"/api/matches/{match.pk}/join/", {"token": "nope", "seat": "b1"}, format="json"
        ),
        lambda: api_as(olga).post(
            f"/api/matches/{match.pk}/seat-requests/", {"token": "nope", "seat": "b1"},
            format="json",
        ),
    ]  # fmt: skip
    for miss in misses:
        assert miss().status_code == 404
    assert browser().get("/watch/nope/").status_code == 429


def test_reads_past_the_limit_wait_their_turn(settings, match, ana, clock):
    settings.RATE_LIMITS = {"reads": "50/minute"}
    client = browser(ana)
    answers = [client.get(f"/matches/{match.pk}/") for _ in range(80)]
    statuses = [answer.status_code for answer in answers]
    # Told a batch at a time, so the limit holds to within a batch.
    batch = limiting.READS_BATCH
    assert statuses[: 50 - batch] == [200] * (50 - batch)
    assert statuses[-1] == 429
    assert answers[-1]["Retry-After"] == "30"  # the rest of the minute
    assert statuses.count(429) >= 80 - 50 - batch
    assert LimitCount.objects.get(scope="reads").count > 50
