"""Idempotency keys: a tap sent again with its key counts once and gets the same answer."""

import threading

import pytest
from django.db import connection

from matches.models import Event, Match

from .pages import HTMX, browser, text


@pytest.fixture
def api_as():
    """An API client sending the person's token, as a phone's program would."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    def client(user):
        client = APIClient()
        token, _created = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return client

    return client


def entry(client, match, key, **body):
    body = {"deal": 1, "side": "a", "games": 1, **body}
    return client.post(
        f"/api/matches/{match.pk}/entries/", body, format="json", HTTP_IDEMPOTENCY_KEY=key
    )


def test_a_repeat_with_the_same_key_gets_the_first_answer_and_changes_nothing(api_as, match, rui):
    first = entry(api_as(rui), match, "tap-1")
    version = Match.objects.get(pk=match.pk).version
    again = entry(api_as(rui), match, "tap-1")

    assert first.status_code == again.status_code == 201
    assert again.content == first.content
    assert again["ETag"] == first["ETag"]
    assert again["Idempotent-Replayed"] == "true"
    assert Match.objects.get(pk=match.pk).version == version
    assert Event.objects.filter(match=match, action=Event.ENTRY).count() == 1


def test_a_tap_with_a_token_reads_the_token_once(api_as, match, rui):
    from django.test.utils import CaptureQueriesContext

    phone = api_as(rui)
    with CaptureQueriesContext(connection) as reads:
        answer = entry(phone, match, "tap-1")
    assert answer.status_code == 201
    # The key's caller and the view's person, one reading.
    tokens = [read["sql"] for read in reads.captured_queries if '"authtoken_token"' in read["sql"]]
    assert len(tokens) == 1


def test_a_key_is_made_if_new_and_then_read_locked(api_as, match, rui):
    from django.test.utils import CaptureQueriesContext

    phone = api_as(rui)

    def keys(reads):
        """The statements on the keys' table, but the clearing of old keys (once a
        minute in a process)."""
        return [
            read["sql"]
            for read in reads.captured_queries
            if '"matches_idempotentrequest"' in read["sql"] and not read["sql"].startswith("DELETE")
        ]

    with CaptureQueriesContext(connection) as first:
        assert entry(phone, match, "tap-1").status_code == 201
    with CaptureQueriesContext(connection) as again:
        assert entry(phone, match, "tap-1")["Idempotent-Replayed"] == "true"
    made = keys(first)  # made, read under its lock; then its answer kept
    assert [sql.split(" ", 1)[0] for sql in made] == ["INSERT", "SELECT", "UPDATE"]
    repeated = keys(again)  # already there: nothing made, read under its lock
    assert [sql.split(" ", 1)[0] for sql in repeated] == ["INSERT", "SELECT"]
    if connection.features.has_select_for_update:  # SQLite's writers take turns anyway
        assert made[1].endswith("FOR UPDATE") and repeated[1].endswith("FOR UPDATE")


def test_a_refusal_is_answered_again_the_same_way(api_as, match, rui, ze):
    entry(api_as(ze), match, "ze-1", side="b", games=2)
    refused = entry(api_as(rui), match, "rui-1")
    again = entry(api_as(rui), match, "rui-1")
    assert refused.status_code == again.status_code == 409
    assert again.json() == refused.json()


def test_the_same_key_with_another_body_is_refused(api_as, match, rui):
    entry(api_as(rui), match, "tap-1")
    other = entry(api_as(rui), match, "tap-1", games=2)
    assert other.status_code == 422
    assert "another request" in other.json()["detail"]
    assert Match.objects.get(pk=match.pk).games_a == 1


def test_keys_are_each_persons_own(api_as, match, rui, ana):
    assert entry(api_as(rui), match, "same").status_code == 201
    # Ana's key of the same name is hers: her entry runs (and is refused on its merits).
    response = entry(api_as(ana), match, "same")
    assert response.status_code == 409
    assert "Idempotent-Replayed" not in response


@pytest.mark.parametrize("key", ["", "x" * 65, "tab\there", "ção"])
def test_a_malformed_key_is_refused(api_as, match, rui, key):
    response = api_as(rui).post(
        f"/api/matches/{match.pk}/entries/",
        {"deal": 1, "side": "a", "games": 1},
        format="json",
        HTTP_IDEMPOTENCY_KEY=key,
    )
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["detail"]
    assert not match.deals.exists()


def test_the_pages_take_keys_too(match, rui):
    phone = browser(rui)
    body = {"deal": "1", "side": "a", "games": "1"}
    url = f"/matches/{match.pk}/entries/"
    first = phone.post(url, body, HTTP_IDEMPOTENCY_KEY="page-tap", **HTMX)
    again = phone.post(url, body, HTTP_IDEMPOTENCY_KEY="page-tap", **HTMX)
    assert first.status_code == again.status_code == 200
    assert text(again) == text(first)
    assert match.deals.get().a == 1


def test_a_rematch_repeated_with_its_key_starts_one_rubber(api_as, match, ana, maria):
    match.end(maria)
    url = f"/api/matches/{match.pk}/rematch/"
    first = api_as(ana).post(url, {}, format="json", HTTP_IDEMPOTENCY_KEY="next")
    again = api_as(ana).post(url, {}, format="json", HTTP_IDEMPOTENCY_KEY="next")
    assert first.status_code == again.status_code == 201
    assert first.json()["id"] == again.json()["id"]
    assert Match.objects.filter(night=match.night).count() == 2
    later = api_as(ana).post(url, {}, format="json")
    assert later.status_code == 409
    assert later.json()["next"] == first.json()["id"]
    assert later.json()["next_url"] == f"http://testserver/api/matches/{first.json()['id']}/"


@pytest.mark.django_db(transaction=True)
def test_twenty_repeats_at_once_with_one_key_count_once(races, live_server, match, rui):
    """The same tap sent 20 times at once (a phone retrying on a flaky network)."""
    import requests
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=rui).key
    answers, start = [], threading.Barrier(20)

    def send():
        start.wait()
        response = requests.post(
            f"{live_server.url}/api/matches/{match.pk}/entries/",
            json={"deal": 1, "side": "a", "games": 1},
            headers={"Authorization": f"Token {token}", "Idempotency-Key": "one-tap"},
            timeout=30,
        )
        answers.append((response.status_code, response.content))

    threads = [threading.Thread(target=send) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    connection.close()

    assert len(answers) == 20
    assert {status for status, _body in answers} == {201}
    assert len({body for _status, body in answers}) == 1
    assert Event.objects.filter(match=match, action=Event.ENTRY).count() == 1
    assert Match.objects.get(pk=match.pk).version == match.version + 1


# Kept only for someone, and only what a view answered ---------------------------------


@pytest.mark.parametrize("credentials", ["Token junk-1", "Basic YW5hOm5v"])
def test_a_key_from_nobody_is_not_kept(match, credentials):
    from rest_framework.test import APIClient

    from matches.models import IdempotentRequest

    client = APIClient(HTTP_AUTHORIZATION=credentials)
    for number in range(3):
        answer = entry(client, match, f"nobody-{number}")
        assert answer.status_code == 401
    calc = client.post(
        "/api/calculator/", {"points": 65}, format="json", HTTP_IDEMPOTENCY_KEY="calc-1"
    )
    assert calc.status_code in (200, 401)
    assert IdempotentRequest.objects.count() == 0


def test_keys_older_than_a_day_go_as_new_ones_come_once_a_minute(api_as, match, rui, monkeypatch):
    import datetime

    from django.utils import timezone

    from matches import idempotency
    from matches.models import IdempotentRequest

    monkeypatch.setattr(idempotency, "_forgotten_at", None)
    entry(api_as(rui), match, "old")
    IdempotentRequest.objects.update(created=timezone.now() - datetime.timedelta(hours=25))
    # Within the minute: each tap costs no delete of its own.
    entry(api_as(rui), match, "new", deal=2, games=0)
    assert set(IdempotentRequest.objects.values_list("key", flat=True)) == {"old", "new"}
    a_minute_ago = idempotency._forgotten_at - idempotency.FORGET_EVERY
    monkeypatch.setattr(idempotency, "_forgotten_at", a_minute_ago)
    entry(api_as(rui), match, "newer", deal=3, games=0)  # refused, and kept as any answer
    assert set(IdempotentRequest.objects.values_list("key", flat=True)) == {"new", "newer"}


def test_a_csrf_refusal_is_not_kept_under_its_key(match, rui):
    from django.conf import settings
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(rui)
    page = client.get(f"/matches/{match.pk}/")
    token = page.cookies[settings.CSRF_COOKIE_NAME].value
    path = f"/matches/{match.pk}/entries/"
    body = {"deal": "1", "side": "a", "games": "1"}
    stale = client.post(path, body, HTTP_X_CSRFTOKEN="stale" * 8, HTTP_IDEMPOTENCY_KEY="k", **HTMX)
    assert stale.status_code == 403
    fresh = client.post(path, body, HTTP_X_CSRFTOKEN=token, HTTP_IDEMPOTENCY_KEY="k", **HTMX)
    assert fresh.status_code == 200
    assert "Idempotent-Replayed" not in fresh
    assert Event.objects.filter(match=match, action=Event.ENTRY).count() == 1
