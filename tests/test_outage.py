"""A database outage answers 503 "try again in a moment", not a 500 with a traceback.

In the process first, with the connection pointed at a port nobody listens on:
the API answers JSON with ``detail`` and ``Retry-After``, the pages a small page
that says so, and each request logs one line with no traceback, whether a view or a
middleware (through handler500) met the outage. Then for real:
gunicorn in production settings on a PostgreSQL cluster of the test's own, which
is stopped under it while it holds open connections.
"""

import json
import logging
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client

from matches.models import User
from scoresheet import urls as project_urls

from .servers import exchange, free_port

DETAIL = "The database cannot be reached right now: try again in a moment."


@pytest.fixture
def unreachable(django_db_blocker):
    """The database connection, pointed at a port where nothing listens."""
    saved = dict(connection.settings_dict)
    with django_db_blocker.unblock():
        connection.close()
        connection.settings_dict.update(HOST="127.0.0.1", PORT=str(free_port()))
        try:
            yield
        finally:
            connection.close()
            connection.settings_dict.clear()
            connection.settings_dict.update(saved)


def api_requests(client):
    return [
        client.get("/api/matches/", HTTP_AUTHORIZATION="Token " + "0" * 40),
        client.get("/api/matches/1/", HTTP_AUTHORIZATION="Token " + "0" * 40),
        client.post("/api/auth/guest/", {"name": "Bia"}, content_type="application/json"),
        client.post(
            "/api/auth/token/",
            {"username": "ana", "password": "sueca-na-mesa-42"},
            content_type="application/json",
        ),
        # Signed in by the session: DRF reads it, and leaves the error to Django.
        client.post(
            "/api/matches/1/entries/",
            {"deal": 1, "side": "a", "games": 1},
            content_type="application/json",
        ),
    ]


def page_requests(client):
    return [
        client.get("/"),
        client.get("/matches/1/"),
        client.get("/join/some-token/"),
        client.get("/watch/some-token/"),
        client.post("/guest/", {"name": "Bia"}),
        client.post("/matches/1/entries/", {"deal": "1", "side": "a", "games": "1"}),
    ]


def outage_lines(records):
    return [record for record in records if record.name == "django.request"]


def test_the_api_answers_503_json_with_retry_after(unreachable, caplog):
    client = Client()
    client.cookies["sessionid"] = "a" * 32  # a session that must be read from the database
    with caplog.at_level(logging.INFO):
        answers = api_requests(client)
    for response in answers:
        assert response.status_code == 503, (response.request["PATH_INFO"], response.content)
        assert response["Content-Type"] == "application/json"
        assert response.json() == {"detail": DETAIL}
        assert response["Retry-After"] == "5"
        assert "no-store" in response["Cache-Control"]
    lines = outage_lines(caplog.records)
    assert len(lines) == len(answers)
    for record, response in zip(lines, answers, strict=True):
        assert record.levelname == "ERROR"
        assert record.exc_info is None
        message = record.getMessage()
        assert message.startswith(f"Service Unavailable: {response.request['PATH_INFO']} (")
        assert "\n" not in message


def test_the_pages_answer_a_small_503_page(unreachable, caplog):
    client = Client()
    client.cookies["sessionid"] = "a" * 32
    with caplog.at_level(logging.INFO):
        answers = page_requests(client)
    for response in answers:
        assert response.status_code == 503, (response.request["PATH_INFO"], response.content)
        assert response["Content-Type"].startswith("text/html")
        assert response["Retry-After"] == "5"
        page = response.content.decode()
        assert DETAIL in page
        assert "Traceback" not in page
        assert len(response.content) < 10_000
    lines = outage_lines(caplog.records)
    assert len(lines) == len(answers)
    assert all(record.exc_info is None for record in lines)


# A middleware that reads the database before the view, as the idempotency keys do: its
# error never reaches process_exception, and the URLconf's handler500 answers it.
def reads_the_database(get_response):
    def middleware(request):
        User.objects.exists()
        return get_response(request)

    return middleware


urlpatterns = project_urls.urlpatterns
handler500 = "matches.outage.server_error"


def test_a_middleware_that_cannot_reach_the_database_answers_503_too(unreachable, settings, caplog):
    settings.ROOT_URLCONF = __name__
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, f"{__name__}.reads_the_database"]
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.INFO):
        api = client.post("/api/auth/guest/", {"name": "Bia"}, content_type="application/json")
        page = client.get("/")
    assert (api.status_code, api.json(), api["Retry-After"]) == (503, {"detail": DETAIL}, "5")
    assert (page.status_code, page["Retry-After"]) == (503, "5")
    assert DETAIL in page.content.decode()
    lines = outage_lines(caplog.records)
    assert [record.getMessage().split(" (")[0] for record in lines] == [
        "Service Unavailable: /api/auth/guest/",
        "Service Unavailable: /",
    ]
    assert all(record.exc_info is None for record in lines)


def test_the_page_speaks_the_persons_language(unreachable):
    response = Client().get("/join/some-token/", HTTP_ACCEPT_LANGUAGE="pt-PT")
    assert response.status_code == 503
    assert "base de dados" in response.content.decode()


# For real: PostgreSQL stops under gunicorn ----------------------------------------------
# The API only: in production settings the pages need collectstatic's manifest, which
# the tests do not make; the pages' answer is checked in the process above.


def test_postgresql_stopped_under_gunicorn_answers_503(cluster, server):
    port = server.port
    status, _headers, body = exchange(port, "POST", "/api/auth/guest/", {"name": "Ana"})
    assert status == 201, body
    token = {"Authorization": f"Token {json.loads(body)['token']}"}
    seats = {"a1": "Ana", "a2": "Rui", "b1": "Zé", "b2": "Maria"}
    status, _headers, body = exchange(port, "POST", "/api/matches/", {"seats": seats}, token)
    assert status == 201, body
    match = json.loads(body)
    for _ in range(4):  # every worker's thread holds an open connection now, most likely
        assert exchange(port, "GET", f"/api/matches/{match['id']}/", headers=token)[0] == 200

    cluster.stop()

    api = [
        ("GET", f"/api/matches/{match['id']}/", None),
        ("POST", f"/api/matches/{match['id']}/entries/", {"deal": 1, "side": "a", "games": 1}),
        ("GET", "/api/matches/", None),
        ("POST", "/api/auth/guest/", {"name": "Bia"}),
    ] * 2
    for method, path, body in api:
        status, headers, answer = exchange(port, method, path, body, token)
        assert status == 503, (method, path, status, answer[:300])
        assert headers["Content-Type"] == "application/json"
        assert json.loads(answer) == {"detail": DETAIL}
        assert headers["Retry-After"] == "5"
    log = Path(server.log).read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]
    lines = [line for line in log.splitlines() if line.startswith("Service Unavailable: ")]
    assert len(lines) == len(api), log[-3000:]
    assert all("(the database: " in line for line in lines), lines


def test_a_keyed_write_during_an_outage_answers_503_too(unreachable, caplog):
    """The idempotency keys are read before the view: handler500 answers their outage."""
    client = Client(raise_request_exception=False)
    client.cookies["sessionid"] = "a" * 32
    with caplog.at_level(logging.INFO):
        response = client.post(
            "/api/matches/1/entries/",
            {"deal": 1, "side": "a", "games": 1},
            content_type="application/json",
            HTTP_AUTHORIZATION="Token " + "0" * 40,
            HTTP_IDEMPOTENCY_KEY="tap-1",
        )
    assert response.status_code == 503, response.content
    assert response.json() == {"detail": DETAIL}
    assert all(record.exc_info is None for record in outage_lines(caplog.records))
