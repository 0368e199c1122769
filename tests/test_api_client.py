"""A Python client generated from the served schema, as an integrator makes one with
openapi-python-client: generated without a warning, and playing a deal on the
production server."""

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers import exchange

BIN = Path(sys.executable).parent  # the generator, and the ruff it formats its code with
PACKAGE = "squarescores_client"


@pytest.fixture(scope="module")
def generated(server, tmp_path_factory):
    """The client's package, generated into a folder of the test's own (never committed),
    and what the generator said while making it."""
    folder = tmp_path_factory.mktemp("client")
    status, _headers, schema = exchange(
        server.port, "GET", "/api/schema/", headers={"Accept": "application/vnd.oai.openapi+json"}
    )
    assert status == 200
    (folder / "openapi.json").write_bytes(schema)
    made = subprocess.run(
        [BIN / "openapi-python-client", "generate", "--path", "openapi.json", "--meta", "none",
         "--output-path", PACKAGE],
        cwd=folder,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"},
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    return folder, made


@pytest.fixture
def client(generated, monkeypatch):
    folder, _made = generated
    monkeypatch.syspath_prepend(str(folder))
    yield lambda module: importlib.import_module(f"{PACKAGE}.{module}")
    for name in [name for name in sys.modules if name.startswith(PACKAGE)]:
        del sys.modules[name]


def test_the_generator_reads_the_schema_without_a_warning(generated):
    _folder, made = generated
    said = made.stdout + made.stderr
    assert made.returncode == 0, said
    assert "warning" not in said.lower(), said


def test_the_client_reads_no_event_stream_as_one_string(generated):
    """A stream lasts minutes: a call that read its body as text would wait all that time."""
    folder, _made = generated
    for stream in ("match_events", "night_events", "watch_events", "tournament_events"):
        code = (folder / PACKAGE / "api" / "live" / f"{stream}.py").read_text()
        assert "response.text" not in code
        assert "response.json()" in code  # its refusals are JSON all the same


def test_the_generated_client_plays_a_deal(client, server):
    base_url = f"http://127.0.0.1:{server.port}"
    models = client("models")
    anyone = client("client").Client(base_url=base_url, raise_on_unexpected_status=True)

    guest = client("api.accounts.guest").sync(client=anyone, body=models.GuestRequest(name="Ana"))
    assert isinstance(guest, models.GuestToken)
    ana = client("client").AuthenticatedClient(
        base_url=base_url, token=guest.token, prefix="Token", raise_on_unexpected_status=True
    )

    seats = models.SeatNamesRequest(a1="Ana", a2="Rui", b1="Zé", b2="Maria")
    match = client("api.matches.start_match").sync(
        client=ana, body=models.NamedSeatsRequest(seats=seats, host_seat=models.SeatEnum.A1)
    )
    assert isinstance(match, models.Match)
    assert match.join_token and match.watch_token  # the host's

    entry = models.EntryRequest(deal=1, side=models.SideEnum.A, games=1)
    entered = client("api.playing.enter_games").sync(
        match.id, client=ana, body=entry, idempotency_key="tap-1"
    )
    assert isinstance(entered, models.Match)
    again = client("api.playing.enter_games").sync_detailed(
        match.id, client=ana, body=entry, idempotency_key="tap-1"
    )
    assert again.headers["Idempotent-Replayed"] == "true"  # the same tap, counted once

    sheet = client("api.matches.get_match").sync(match.id, client=ana)
    assert [(deal.number, deal.a, deal.b) for deal in sheet.deals] == [(1, 1, 0)]
    assert sheet.sides.a.games == 1
    assert sheet.version == entered.version

    calculated = client("api.calculator.calculate").sync(
        client=anyone, body=models.PointsRequest(points=65)
    )
    assert (calculated.games, calculated.other_points) == (1, 55)

    # The sheet's stream, read as one is: its first lines come at once.
    with ana.get_httpx_client().stream("GET", sheet.events, timeout=10) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        assert next(stream.iter_lines()).startswith("retry:")
