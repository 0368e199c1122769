"""At a real table: ``bin/run --lan`` serves on the machine's Wi-Fi address, and the links
and QR codes the host hands out name that address (PUBLIC_URL), not the one the host's
own browser used (127.0.0.1, which no other phone can reach)."""

import http.cookiejar
import io
import json
import re
import runpy
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import segno
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from matches.views.seats import _qr
from scoresheet import lan

from .conftest import SEAT_NAMES
from .servers import ROOT, BinRun

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


class LanServer(BinRun):
    """``bin/run --lan`` itself, on a fresh SQLite file of its own (which it migrates):
    the production server and settings on the LAN address, PUBLIC_URL naming it."""

    name = "bin-run-lan"

    def __init__(self, folder, *args):
        self.address = lan_address_here()
        database = f"sqlite:///{Path(folder).resolve() / 'db.sqlite3'}"
        env = {"LAN_ADDRESS": self.address, "RATE_LIMIT_GUEST": "", "SHEET_POLL_MS": "300"}
        super().__init__(database, "--lan", *args, env=env)
        self.url = f"http://{self.address}:{self.port}"

    def wait_ready(self, timeout=90):
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


# The settings ----------------------------------------------------------------------


def settings_with(monkeypatch, **env):
    """The settings as they read ``env``: the development ones unless it says DEBUG."""
    for name in ("PUBLIC_URL", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "DEBUG", "SECRET_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in {"DEBUG": "true", **env}.items():
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


def test_the_lan_server_answers_as_production_does(lan_server):
    """No debug page on the Wi-Fi: a page that is not there is the site's own refusal."""
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{lan_server.url}/matches/999999/", timeout=10)
    assert refused.value.code == 404
    page = refused.value.read().decode()
    assert "There is nothing here" in page
    assert "URLconf" not in page and "DEBUG" not in page


def test_plain_bin_run_is_not_served_on_the_lan_address(tmp_path):
    # Without --lan, bin/run listens on 127.0.0.1 alone: nothing answers a phone there.
    address = lan_address_here()
    server = BinRun(f"sqlite:///{tmp_path / 'db.sqlite3'}", env={"RATE_LIMIT_GUEST": ""})
    try:
        server.wait_ready()
        try:
            urllib.request.urlopen(f"http://{address}:{server.port}/", timeout=5)
        except urllib.error.HTTPError as answer:
            pytest.fail(f"the LAN address was served: {answer.code}")
        except OSError:
            pass  # refused: nothing listens there
        else:
            pytest.fail("the LAN address was served")
    finally:
        server.stop()
