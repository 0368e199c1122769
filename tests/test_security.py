"""Production settings, security headers, what is kept of a person's answers, and what
an outsider can learn. The rate limits have their own file, test_limits.py."""

import datetime
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from matches.middleware import CONTENT_SECURITY_POLICY
from matches.models import Match, User

from .clubs import club_of
from .pages import HTMX, browser, shown, text
from .tournaments import tournament_of

ROOT = Path(__file__).resolve().parent.parent


# Headers ------------------------------------------------------------------------------


def test_content_security_policy_allows_no_inline_script():
    directives = dict(part.split(" ", 1) for part in CONTENT_SECURITY_POLICY.split("; "))
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["default-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in CONTENT_SECURITY_POLICY


@pytest.mark.parametrize(
    "path",
    ["/", "/accounts/login/", "/guest/", "/matches/999/", "/api/calculator/", "/api/nowhere/"],
)
def test_every_response_carries_the_security_headers(db, client, path):
    response = client.get(path)
    assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"


def test_the_sheet_and_its_poll_carry_the_policy(match, ana):
    page = browser(ana)
    for path in (f"/matches/{match.pk}/", f"/matches/{match.pk}/sheet/"):
        response = page.get(path, **HTMX)
        assert response.status_code == 200
        assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY


def test_pages_hold_no_inline_script_or_style(match, ana):
    """What the policy would block must not be needed: no inline code in our pages."""
    page = browser(ana)
    for path in ("/", "/guest/", "/accounts/login/", f"/matches/{match.pk}/", "/matches/new/"):
        body = text(page.get(path))
        for script in body.split("<script")[1:]:
            head = script.split(">", 1)[0]
            assert "src=" in head or 'type="application/json"' in head, (path, head)
        assert "<style" not in body, path
        assert " style=" not in body, path
        assert " onclick=" not in body.lower(), path
        assert "hx-on" not in body, path


# What is kept of a person's answers ---------------------------------------------------


def kept(response):
    """The Cache-Control directives of a response, as a set."""
    return {part.strip() for part in response.get("Cache-Control", "").split(",") if part}


NOT_KEPT = {"private", "no-store"}


@pytest.fixture
def played(match, rui):
    match.record(rui, deal=1, side="a", games=1)
    return match


def test_a_signed_in_persons_pages_and_exports_are_not_kept(played, ana):
    pk, night = played.pk, played.night_id
    page = browser(ana)
    for path in (
        "/",
        "/history/",
        "/standings/",
        f"/nights/{night}/",
        f"/history/{pk}/",
        f"/matches/{pk}/",
        f"/matches/{pk}/sheet/",
        f"/matches/{pk}/export.csv",
        f"/matches/{pk}/export.json",
        f"/nights/{night}/export.csv",
        f"/nights/{night}/export.json",
        "/my-data.json",
    ):
        response = page.get(path)
        assert response.status_code == 200, path
        assert kept(response) >= NOT_KEPT, (path, response.get("Cache-Control"))


def test_the_apis_personal_answers_are_not_kept(played, ana):
    pk, night = played.pk, played.night_id
    token = Token.objects.create(user=ana).key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    session = browser(ana)
    for path in (
        "/api/matches/",
        f"/api/matches/{pk}/",
        f"/api/matches/{pk}/history/",
        f"/api/nights/{night}/",
    ):
        for response in (client.get(path), session.get(path)):
            assert response.status_code == 200, path
            assert kept(response) >= NOT_KEPT, (path, response.get("Cache-Control"))
    for response in (
        APIClient().post(
            "/api/auth/token/", {"username": "ana", "password": "sueca-na-mesa-42"}, format="json"
        ),
        APIClient().post("/api/auth/guest/", {"name": "Tó"}, format="json"),
        client.post(f"/api/matches/{pk}/links/"),
    ):
        assert response.status_code in (200, 201), response.content
        assert kept(response) >= NOT_KEPT, response.get("Cache-Control")


def test_an_unchanged_sheet_still_answers_304_not_kept(played, ana):
    """The poll and API clients send If-None-Match themselves, so no-store costs no
    304: only the browser's own copy is gone."""
    page = browser(ana)
    first = page.get(f"/matches/{played.pk}/", **HTMX)
    poll = re.search(r'hx-get="([^"]*/sheet/\?t=[^"]*)"', text(first)).group(1)
    unchanged = page.get(poll.replace("&amp;", "&"), HTTP_IF_NONE_MATCH=first["ETag"], **HTMX)
    assert unchanged.status_code == 304
    assert kept(unchanged) >= NOT_KEPT

    token = Token.objects.create(user=ana).key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    sheet = client.get(f"/api/matches/{played.pk}/")
    again = client.get(f"/api/matches/{played.pk}/", HTTP_IF_NONE_MATCH=sheet["ETag"])
    assert again.status_code == 304
    assert kept(again) >= NOT_KEPT


def test_what_anyone_may_read_without_signing_in_is_left_to_the_view(match, client):
    assert kept(client.get("/guest/")) == set()
    assert kept(client.get(f"/watch/{match.watch_token}/")) == {"private", "no-cache"}


STATIC = """
import django
from django.test import Client

django.setup()
client = Client()
client.cookies["sessionid"] = "a-signed-in-browser"
response = client.get("/static/app.js")
print("static", response.status_code, response["Cache-Control"])
"""


def test_static_files_keep_their_own_caching_for_a_signed_in_browser():
    env = {
        "PATH": os.environ.get("PATH", ""),
        "LANG": "C.UTF-8",
        "DJANGO_SETTINGS_MODULE": "scoresheet.settings",
        "DEBUG": "true",
        "DATABASE_URL": "sqlite://:memory:",
    }
    result = subprocess.run(
        [sys.executable, "-c", STATIC],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    status, cache_control = result.stdout.split(" ", 2)[1:]
    assert status == "200"
    assert "public" in cache_control
    assert "no-store" not in cache_control


PRODUCTION = """
import django
from django.conf import settings
from django.core.management import call_command
from django.test import Client

django.setup()
call_command("check", deploy=True, fail_level="WARNING", verbosity=0)
print("session_cookie_secure", settings.SESSION_COOKIE_SECURE)
print("csrf_cookie_secure", settings.CSRF_COOKIE_SECURE)
print("session_cookie_httponly", settings.SESSION_COOKIE_HTTPONLY)
print("hsts", settings.SECURE_HSTS_SECONDS, settings.SECURE_HSTS_INCLUDE_SUBDOMAINS)
client = Client()
plain = client.get("/api/calculator/", HTTP_HOST="scores.example.com")
print("http", plain.status_code, plain.get("Location"))
secure = client.get("/api/calculator/", HTTP_HOST="scores.example.com", secure=True)
print("https", secure.status_code, secure["Strict-Transport-Security"])
print("csp", secure["Content-Security-Policy"])
print("frames", secure["X-Frame-Options"])
stranger = client.get("/api/calculator/", HTTP_HOST="evil.example.net", secure=True)
print("stranger", stranger.status_code)
"""


def production(**env):
    # A clean environment: nothing of the test run's own (DJANGO_ALLOW_ASYNC_UNSAFE, say).
    return {
        "PATH": os.environ.get("PATH", ""),
        "LANG": "C.UTF-8",
        "DJANGO_SETTINGS_MODULE": "scoresheet.settings",
        "DEBUG": "false",
        "SECRET_KEY": "a-long-random-production-key-" + "x" * 40,
        "ALLOWED_HOSTS": "scores.example.com",
        "DATABASE_URL": "sqlite://:memory:",
        **env,
    }


def test_production_settings_pass_the_deploy_check_with_secure_cookies_and_hsts():
    result = subprocess.run(
        [sys.executable, "-c", PRODUCTION],
        env=production(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    said = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert said["session_cookie_secure"] == "True"
    assert said["csrf_cookie_secure"] == "True"
    assert said["session_cookie_httponly"] == "True"
    assert said["hsts"] == "31536000 True"
    assert said["http"] == "301 https://scores.example.com/api/calculator/"
    assert said["https"] == "405 max-age=31536000; includeSubDomains"
    assert said["csp"] == CONTENT_SECURITY_POLICY
    assert said["frames"] == "DENY"
    assert said["stranger"] == "400"


def run_production(script, **env):
    result = subprocess.run(
        [sys.executable, "-c", script],
        env=production(**env),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return dict(line.split(" ", 1) for line in result.stdout.splitlines())


FORWARDED_PROTO = """
import django
from django.test import Client

django.setup()
claimed = Client().get(
    "/api/calculator/", HTTP_HOST="scores.example.com", HTTP_X_FORWARDED_PROTO="https"
)
print("claimed", claimed.status_code, claimed.get("Location"))
print("hsts", claimed.get("Strict-Transport-Security"))
"""


def test_production_without_a_proxy_does_not_believe_x_forwarded_proto():
    """Plain HTTP claiming to be HTTPS is still plain HTTP: redirected, no HSTS."""
    said = run_production(FORWARDED_PROTO)
    assert said["claimed"] == "301 https://scores.example.com/api/calculator/"
    assert said["hsts"] == "None"


def test_behind_a_trusted_proxy_x_forwarded_proto_says_https():
    said = run_production(FORWARDED_PROTO, TRUSTED_PROXIES="1")
    assert said["claimed"] == "405 None"
    assert said["hsts"] == "max-age=31536000; includeSubDomains"


HSTS = """
import django
from django.test import Client

django.setup()
secure = Client().get("/api/calculator/", HTTP_HOST="scores.example.com", secure=True)
print("hsts", secure["Strict-Transport-Security"])
"""


def test_hsts_preload_is_off_by_default_and_an_opt_in():
    assert run_production(HSTS)["hsts"] == "max-age=31536000; includeSubDomains"
    opted = run_production(HSTS, SECURE_HSTS_PRELOAD="true")
    assert opted["hsts"] == "max-age=31536000; includeSubDomains; preload"
    assert run_production(HSTS, SECURE_HSTS_INCLUDE_SUBDOMAINS="false")["hsts"] == (
        "max-age=31536000"
    )


@pytest.mark.parametrize(
    ("env", "refusal"),
    [
        ({"TRUSTED_PROXIES": "-1"}, "TRUSTED_PROXIES must be 0 or more"),
        (
            {"SECURE_HSTS_PRELOAD": "true", "SECURE_HSTS_INCLUDE_SUBDOMAINS": "false"},
            "SECURE_HSTS_PRELOAD needs SECURE_HSTS_INCLUDE_SUBDOMAINS",
        ),
    ],
)
def test_production_refuses_settings_that_do_not_hold(env, refusal):
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=production(**env),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert refusal in result.stderr


CACHES = """
import django
from django.conf import settings

django.setup()
print("caches", *sorted(f"{name}:{cache['BACKEND']}" for name, cache in settings.CACHES.items()))
"""


def test_no_cache_keeps_anything():
    """Django's caches keep pickles, and nothing uses one: the default keeps nothing, and
    the rate limits count in rows of plain numbers (test_limits.py)."""
    dummy = "default:django.core.cache.backends.dummy.DummyCache"
    assert run_production(CACHES)["caches"] == dummy
    assert run_production(CACHES, CACHE_URL="redis://127.0.0.1:6379/1")["caches"] == dummy


def started(env):
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); from django.conf import settings;"
         " print(settings.DEBUG)"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_production_refuses_the_development_secret_key():
    refused = started(production(SECRET_KEY="django-insecure-development-only-never-in-production"))
    assert refused.returncode != 0
    assert "Set SECRET_KEY: the development key is refused" in refused.stderr


def test_debug_is_off_unless_set_and_production_needs_a_key_of_its_own(tmp_path):
    env = production(SECRET_KEY_FILE=str(tmp_path / "no-key-here"))
    del env["DEBUG"]
    assert started(env).stdout.strip() == "False"
    del env["SECRET_KEY"]
    refused = started(env)
    assert refused.returncode != 0
    assert "Set SECRET_KEY to a long random string of this deployment's own" in refused.stderr
    assert "or DEBUG=true to work on the code" in refused.stderr
    assert started({**env, "DEBUG": "true"}).stdout.strip() == "True"


# An outsider learns nothing ----------------------------------------------------------


NAMES = ("Ana", "Rui", "Zé", "Maria", "Ana &amp; Rui", "Zé &amp; Maria")


def routes(patterns=None, prefix=""):
    """Every route of the site as (route, converter names), admin aside."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            if pattern.app_name != "admin":
                yield from routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern) and "<" in route:
            yield route


def fill(route, match, note, asked, tournament, club):
    """A route with every id naming the match (or its night, its note, a request for one
    of its seats, the tournament and one of its series, or the club, one of its players
    and its season), and seat b1 where a route names a seat."""
    night = "night" in route
    own = tournament.pk if "tournament" in route else match.night_id if night else match.pk
    if "clubs/" in route:
        own = club.pk
    values = {
        "pk": own,
        "id": own,
        "player_id": club.players.get(name="Rui").pk,
        "season_id": club.seasons.get().pk,
        "user_id": match.host_id,
        "series_id": tournament.progress().rounds[0].series[0].id,
        "number": 1,
        "note_id": note.pk,
        "request_id": asked.pk,
        "format": "json",
        "position": "b1",
        "seat": "b1",
    }
    path = "/" + route
    for name, value in values.items():
        for converter in ("int:", "id:", "seat:", "str:", ""):
            path = path.replace(f"<{converter}{name}>", str(value))
    return path


@pytest.fixture
def secrets_of(match, rui):
    match.record(rui, deal=1, side="a", games=1)
    note = match.add_note(rui, side="b", text="Maria revoked")
    # Someone on a new browser asks for Zé's seat back: a request the outsider must not see.
    asked = match.ask_for_seat(User.create_guest("Tó"), token=match.join_token, position="b1")
    # And Ana's tournament, whose pairs bear the same names.
    tournament = tournament_of(match.host, pairs=4)
    tournament.start_round(match.host)
    # And Ana's club, whose roster bears them too, with a season.
    club, _players = club_of(match.host, ["Ana", "Rui", "Zé", "Maria"])
    club.add_season(
        match.host, name="Época", start=datetime.date(2026, 9, 1), end=datetime.date(2027, 6, 30)
    )
    return match, note, asked, tournament, club


def test_an_outsider_gets_404_and_no_names_from_every_page_and_endpoint(secrets_of, olga):
    match, note, asked, tournament, club = secrets_of
    checked = []
    for route in routes():
        if "token>" in route:
            continue  # capability links: a wrong token is the outsider's case, below
        path = fill(route, match, note, asked, tournament, club)
        assert "<" not in path, route
        # Reading, Olga hears "no such match" (or that the method is wrong, which the
        # route alone tells); anonymous, she may be asked to sign in first. Writing is
        # refused one way or another (the join endpoint checks the body and the token
        # first), and no answer carries a name, a token or a note.
        for client, reading in ((browser(olga), {404, 405}), (browser(), {302, 401, 404, 405})):
            for method in ("get", "post"):
                if method == "get":
                    response = client.get(path)
                    assert response.status_code in reading, (path, response.status_code)
                else:
                    response = client.post(path, "{}", content_type="application/json")
                    assert response.status_code in {302, *range(400, 500)}, path
                if response.status_code == 302:
                    assert response["Location"].startswith("/accounts/login/"), path
                body = shown(response)
                tokens = (
                    match.join_token,
                    match.watch_token,
                    tournament.watch_token,
                    club.watch_token,
                )
                for secret in (*NAMES, *tokens, "revoked"):
                    assert secret not in body, (method, path, secret)
                checked.append(path)
    assert {f"/matches/{match.pk}/", f"/api/matches/{match.pk}/"} <= set(checked)
    assert {f"/tournaments/{tournament.pk}/", f"/api/tournaments/{tournament.pk}/"} <= set(checked)
    assert {f"/clubs/{club.pk}/", f"/api/clubs/{club.pk}/ratings/"} <= set(checked)
    assert club.players.count() == 4 and club.organisers.count() == 1
    assert Match.objects.get(pk=match.pk).version == match.version
    assert tournament.rounds.count() == 1 and not tournament.progress().finished


def test_a_wrong_token_shows_nothing(secrets_of, olga):
    checked = []
    for route in routes():
        if "token>" not in route:
            continue
        # The real match and seat around a made-up token (a seat's link names both).
        path = fill(re.sub(r"<token:\w+>", "x" * 32, route), *secrets_of)
        assert "<" not in path, route
        response = browser(olga).get(path)
        assert response.status_code == 404, path
        checked.append(path)
        for secret in NAMES:
            assert secret not in shown(response), path
    match = secrets_of[0]
    assert f"/join/{'x' * 32}/ask/" in checked
    assert f"/seat/{match.pk}/b1/{'x' * 32}/" in checked


def test_an_outsiders_match_list_and_nights_hold_nothing_of_others(secrets_of, api_as, olga):
    client = api_as(olga)
    assert client.get("/api/matches/").json()["count"] == 0
    match = secrets_of[0]
    assert client.get(f"/api/nights/{match.night_id}/").status_code == 404
    assert "Maria" not in shown(browser(olga).get("/"))


def test_the_key_bin_run_made_for_this_copy_will_do(tmp_path):
    kept = tmp_path / "kept"
    kept.write_text("a-key-of-this-copys-own-" + "k" * 40 + "\n")
    env = production(SECRET_KEY_FILE=str(kept))
    del env["SECRET_KEY"]
    said = subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); from django.conf import settings;"
         " print(settings.SECRET_KEY)"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert said.stdout.strip() == "a-key-of-this-copys-own-" + "k" * 40
