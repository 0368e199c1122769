"""Production settings, security headers, rate limits, and what an outsider can learn."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.cache import cache
from django.urls import URLPattern, URLResolver, get_resolver

from matches.middleware import CONTENT_SECURITY_POLICY
from matches.models import Match, Night, User

from .pages import HTMX, browser, text

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
    assert said["https"] == "405 max-age=31536000; includeSubDomains; preload"
    assert said["csp"] == CONTENT_SECURITY_POLICY
    assert said["frames"] == "DENY"
    assert said["stranger"] == "400"


def test_production_refuses_the_development_secret_key():
    env = production()
    del env["SECRET_KEY"]
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "Set SECRET_KEY" in result.stderr


# Rate limits --------------------------------------------------------------------------


@pytest.fixture
def limits(settings):
    settings.RATE_LIMITS = {"login": "3/minute", "guest": "3/hour"}
    cache.clear()
    yield settings.RATE_LIMITS
    cache.clear()


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
    wrong = {"username": "ana", "password": "guess"}
    for _ in range(3):
        assert client.post("/api/auth/token/", wrong, format="json").status_code == 400
    right = {"username": "ana", "password": "sueca-na-mesa-42"}
    refused = client.post("/api/auth/token/", right, format="json")
    assert refused.status_code == 429
    assert "Too many attempts" in refused.json()["detail"]
    assert "token" not in refused.json()


def test_log_in_page_is_limited_with_a_message(client, ana, limits):
    wrong = {"username": "ana", "password": "guess"}
    for _ in range(3):
        assert client.post("/accounts/login/", wrong).status_code == 400  # the form again
    refused = client.post("/accounts/login/", {"username": "ana", "password": "sueca-na-mesa-42"})
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


def fill(route, match, note):
    """A route with every id naming the match (or its night, or its note)."""
    night = "night" in route
    values = {
        "pk": match.night_id if night else match.pk,
        "id": match.night_id if night else match.pk,
        "number": 1,
        "note_id": note.pk,
        "format": "json",
    }
    path = "/" + route
    for name, value in values.items():
        for converter in ("int:", "id:", "str:", ""):
            path = path.replace(f"<{converter}{name}>", str(value))
    return path


def shown(response):
    """The body without its CSRF tokens: 64 random letters may spell a name by chance."""
    return re.sub(r"[A-Za-z0-9]{64}", "", text(response))


@pytest.fixture
def secrets_of(match, rui):
    match.record(rui, deal=1, side="a", games=1)
    note = match.add_note(rui, side="b", text="Maria revoked")
    return match, note


def test_an_outsider_gets_404_and_no_names_from_every_page_and_endpoint(secrets_of, olga):
    match, note = secrets_of
    checked = []
    for route in routes():
        if "token>" in route:
            continue  # capability links: a wrong token is the outsider's case, below
        path = fill(route, match, note)
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
                for secret in (*NAMES, match.join_token, match.watch_token, "revoked"):
                    assert secret not in body, (method, path, secret)
                checked.append(path)
    assert {f"/matches/{match.pk}/", f"/api/matches/{match.pk}/"} <= set(checked)
    assert Match.objects.get(pk=match.pk).version == match.version


def test_a_wrong_token_shows_nothing(secrets_of, olga):
    for route in routes():
        if "token>" not in route:
            continue
        path = "/" + route.split("<")[0] + "x" * 32 + route.split(">")[1]
        response = browser(olga).get(path)
        assert response.status_code == 404, path
        for secret in NAMES:
            assert secret not in shown(response), path


def test_an_outsiders_match_list_and_nights_hold_nothing_of_others(secrets_of, api_as, olga):
    client = api_as(olga)
    assert client.get("/api/matches/").json()["count"] == 0
    night = Night.objects.get()
    assert client.get(f"/api/nights/{night.pk}/").status_code == 404
    assert "Maria" not in shown(browser(olga).get("/"))
