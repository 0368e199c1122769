"""At a real table: ``bin/run --lan`` serves on the machine's Wi-Fi address, and the links
and QR codes the host hands out name that address (PUBLIC_URL), not the one the host's
own browser used (127.0.0.1, which no other phone can reach)."""

import http.cookiejar
import io
import json
import re
import runpy
import socket
import sys
import time
import urllib.error
import urllib.request

import pytest
import segno
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from matches.views.table import _qr
from scoresheet import lan

from .conftest import SEAT_NAMES
from .servers import ROOT, Server, development_env, free_port, sqlite_database

SETTINGS = str(ROOT / "scoresheet" / "settings.py")
QR_TITLE = "QR code of the join link"


def lan_address_here():
    """The machine's own network address where it has one (a plain-http origin, as a
    phone at the table sees it); else 127.0.0.2, an address of its own that is not the
    host's 127.0.0.1."""
    try:
        return lan.lan_address({})
    except LookupError:
        return "127.0.0.2"


def runserver(address, port):
    """The command line ``bin/run --lan`` ends with (--noreload: one process to stop)."""
    return [sys.executable, "manage.py", "runserver", f"{address}:{port}", "--noreload"]


class LanServer(Server):
    """The server ``bin/run --lan`` starts: runserver on the LAN address, PUBLIC_URL
    naming it, the development settings, a fresh SQLite file."""

    name = "runserver-lan"

    def __init__(self, folder):
        self.address, port = lan_address_here(), free_port()
        self.url = f"http://{self.address}:{port}"
        env = development_env(
            sqlite_database(folder), PUBLIC_URL=self.url, RATE_LIMIT_GUEST="", SHEET_POLL_MS="300"
        )
        super().__init__(runserver(self.address, port), env)
        self.port = port

    def wait_ready(self, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} stopped:\n{self.output()}")
            try:
                urllib.request.urlopen(self.url + "/", timeout=2).close()
                return self
            except (OSError, urllib.error.HTTPError):
                time.sleep(0.1)
        raise RuntimeError(f"{self.name} did not answer in {timeout}s:\n{self.output()}")


# The address ---------------------------------------------------------------------


def test_lan_address_is_the_override_when_given():
    assert lan.lan_address({"LAN_ADDRESS": " 192.168.1.20 "}) == "192.168.1.20"


def test_lan_address_refuses_an_override_that_is_no_ipv4_address():
    with pytest.raises(LookupError, match="LAN_ADDRESS must be an IPv4 address"):
        lan.lan_address({"LAN_ADDRESS": "my-laptop.local"})


def test_lan_address_is_never_loopback():
    # A probe routed through loopback finds only 127.0.0.1: that is no address for phones.
    with pytest.raises(LookupError, match="set LAN_ADDRESS"):
        lan.lan_address({}, probes=("127.0.0.1",))


def test_lan_address_is_an_ipv4_address_of_this_machine():
    try:
        address = lan.lan_address({})
    except LookupError:
        pytest.skip("this machine has no network address")
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", address)
    assert not address.startswith("127.")
    with socket.socket() as probe:
        probe.bind((address, 0))  # only an address of this machine's own can be bound


def test_show_prints_the_address_and_its_qr_code():
    out = io.StringIO()
    lan.show("http://192.168.1.20:8000", out=out)
    printed = out.getvalue()
    assert "http://192.168.1.20:8000" in printed
    assert "▄" in printed or "█" in printed  # the code, drawn with half blocks


def test_bin_run_lan_ends_with_runserver_on_the_address_it_names_in_public_url():
    script = (ROOT / "bin" / "run").read_text()
    assert 'export PUBLIC_URL="http://$address:${LAN_PORT:-8000}"' in script
    assert script.rstrip().endswith(
        'exec .venv/bin/python manage.py runserver "$address:${LAN_PORT:-8000}"'
    )
    # Plain bin/run stays as it was.
    assert 'exec .venv/bin/python manage.py runserver "${PORT:-127.0.0.1:8000}"' in script


# The settings ----------------------------------------------------------------------


def settings_with(monkeypatch, **env):
    for name in ("PUBLIC_URL", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "DEBUG", "SECRET_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(SETTINGS)


def test_without_public_url_the_settings_stay_local(monkeypatch):
    settings = settings_with(monkeypatch)
    assert settings["PUBLIC_URL"] == ""
    assert settings["ALLOWED_HOSTS"] == ["127.0.0.1", "localhost", "[::1]"]
    assert settings["CSRF_TRUSTED_ORIGINS"] == []


def test_public_url_is_an_allowed_host_and_a_trusted_origin(monkeypatch):
    settings = settings_with(monkeypatch, PUBLIC_URL="http://192.168.1.20:8000/")
    assert settings["PUBLIC_URL"] == "http://192.168.1.20:8000"
    assert settings["ALLOWED_HOSTS"] == ["127.0.0.1", "localhost", "[::1]", "192.168.1.20"]
    assert settings["CSRF_TRUSTED_ORIGINS"] == ["http://192.168.1.20:8000"]


def test_public_url_joins_the_hosts_production_names(monkeypatch):
    settings = settings_with(
        monkeypatch,
        DEBUG="false",
        SECRET_KEY="x" * 50,
        ALLOWED_HOSTS="sueca.example",
        PUBLIC_URL="https://[2001:db8::1]",
    )
    assert settings["ALLOWED_HOSTS"] == ["sueca.example", "[2001:db8::1]"]


@pytest.mark.parametrize(
    "value",
    ["192.168.1.20:8000", "ftp://192.168.1.20", "http://", "http://host:port",
     "http://192.168.1.20:8000/sueca", "http://ana@192.168.1.20"],
)  # fmt: skip
def test_a_public_url_that_is_no_address_is_refused(monkeypatch, value):
    with pytest.raises(ImproperlyConfigured, match="PUBLIC_URL must look like"):
        settings_with(monkeypatch, PUBLIC_URL=value)


# The links --------------------------------------------------------------------------


def invite_of(match, host):
    client = Client()
    client.force_login(host)
    response = client.get(f"/matches/{match.pk}/invite/", HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return response.content.decode()


def test_links_and_qr_code_name_the_public_url(match, ana, settings):
    settings.PUBLIC_URL = "http://192.168.1.20:8000"
    page = invite_of(match, ana)
    join = f"http://192.168.1.20:8000/join/{match.join_token}/"
    assert f'href="{join}"' in page
    assert f'href="http://192.168.1.20:8000/watch/{match.watch_token}/"' in page
    assert (
        segno.make(join, error="m").svg_inline(scale=4, light="#fff", svgclass="qr", title=QR_TITLE)
        in page
    )
    assert "testserver" not in page


def test_without_public_url_links_name_the_address_the_host_used(match, ana, settings):
    settings.PUBLIC_URL = ""
    page = invite_of(match, ana)
    join = f"http://testserver/join/{match.join_token}/"
    assert f'href="{join}"' in page
    assert _qr(join, QR_TITLE) in page


# A real server, as bin/run --lan starts it --------------------------------------------


@pytest.fixture(scope="module")
def lan_server(tmp_path_factory):
    server = LanServer(tmp_path_factory.mktemp("lan"))
    try:
        yield server.wait_ready()
    finally:
        server.stop()


class Visitor:
    """A browser without a browser: cookies, and the CSRF token the pages hand out."""

    def __init__(self, base):
        self.base = base
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def get(self, path, headers=None):
        request = urllib.request.Request(self.base + path, headers=headers or {})
        with self.opener.open(request, timeout=10) as answer:
            return answer.status, answer.read().decode()

    def post(self, path, data=None, json_body=None):
        token = next(c.value for c in self.cookies if c.name == "csrftoken")
        headers = {"X-CSRFToken": token}
        if json_body is not None:
            body, headers["Content-Type"] = json.dumps(json_body).encode(), "application/json"
        else:
            body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": token}).encode()
        request = urllib.request.Request(self.base + path, data=body, headers=headers)
        with self.opener.open(request, timeout=10) as answer:
            return answer.status, answer.read().decode()


def test_the_lan_server_answers_on_its_address_and_hands_out_its_links(lan_server):
    host = Visitor(lan_server.url)
    # The Host header is the LAN address, as every phone at the table sends it.
    status, _page = host.get("/guest/")
    assert status == 200
    status, _page = host.post("/guest/", {"name": "Ana"})
    assert status == 200
    status, body = host.post("/api/matches/", json_body={"seats": SEAT_NAMES, "host_seat": "a1"})
    assert status == 201
    match = json.loads(body)
    status, panel = host.get(f"/matches/{match['id']}/invite/", {"HX-Request": "true"})
    assert status == 200
    join = f"{lan_server.url}/join/{match['join_token']}/"
    assert f'href="{join}"' in panel
    assert f'href="{lan_server.url}/watch/' in panel
    assert _qr(join, QR_TITLE) in panel


def test_the_lan_server_still_refuses_other_host_names(lan_server):
    request = urllib.request.Request(lan_server.url + "/", headers={"Host": "evil.example"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 400


def test_the_lan_address_is_not_served_without_the_lan_settings(tmp_path):
    # Plain bin/run's settings: a phone's Host (the LAN address) gets 400, the bug --lan fixes.
    address = lan_address_here()
    port = free_port()
    server = Server(runserver(address, port), development_env(sqlite_database(tmp_path)))
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://{address}:{port}/", timeout=2)
            except urllib.error.HTTPError as refused:
                assert refused.code == 400
                break
            except OSError:
                assert time.monotonic() < deadline, server.output()
                assert server.process.poll() is None, server.output()
                time.sleep(0.1)
            else:
                pytest.fail("served a Host it does not allow")
    finally:
        server.stop()
