"""The server's limits (scoresheet/asgi.py): what waits too long for a thread, or finds
too many waiting, or takes too long to arrive, is refused at once and runs nothing."""

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from scoresheet import asgi

SCOPE = {
    "type": "http",
    "method": "POST",
    "path": "/api/matches/1/end/",
    "query_string": b"",
    "headers": [(b"host", b"testserver"), (b"content-length", b"2")],
    "client": ("127.0.0.1", 50000),
    "server": ("testserver", 80),
    "scheme": "http",
    "http_version": "1.1",
}


class App:
    """A WSGI application that counts what it runs, each request held until ``go``."""

    def __init__(self):
        self.ran = 0
        self.go = threading.Event()

    def __call__(self, environ, start_response):
        self.go.wait(5)
        self.ran += 1
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]


def run(scene):
    """``scene`` on an event loop of its own, in a thread of its own: the test's own
    thread may hold Playwright's loop, after the browser tests."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, scene).result()


def whole(body=b"{}"):
    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def answered(bridge, receive, scope=SCOPE, sent=None):
    sent = [] if sent is None else sent

    async def send(message):
        sent.append(message)

    await bridge(scope, receive, send)
    return sent[0]["status"] if sent else None


def test_past_the_most_waiting_a_request_is_refused_and_runs_nothing():
    app = App()
    bridge = asgi.Bridge(app, threads=1)

    async def crowd():
        waiting = [asyncio.ensure_future(answered(bridge, whole())) for _ in range(33)]
        await asyncio.sleep(0.2)
        refused = await answered(bridge, whole())
        app.go.set()
        return refused, await asyncio.gather(*waiting)

    refused, served = run(crowd())
    assert refused == 503
    assert served == [200] * 33
    assert app.ran == 33


def test_a_request_that_waited_too_long_for_a_thread_runs_nothing(monkeypatch):
    monkeypatch.setattr(asgi, "QUEUE_TIME", 0.1)
    app = App()
    bridge = asgi.Bridge(app, threads=1)

    async def two():
        first = asyncio.ensure_future(answered(bridge, whole()))
        second = asyncio.ensure_future(answered(bridge, whole()))
        await asyncio.sleep(0.3)
        app.go.set()
        return await asyncio.gather(first, second)

    assert run(two()) == [200, 503]
    assert app.ran == 1


def test_a_body_that_takes_too_long_to_arrive_runs_nothing(monkeypatch):
    monkeypatch.setattr(asgi, "BODY_TIME", 0.1)
    app = App()
    app.go.set()

    async def slowly():
        await asyncio.sleep(1)
        return {"type": "http.request", "body": b"{}", "more_body": False}

    assert run(answered(asgi.Bridge(app, threads=1), slowly)) == 408
    assert app.ran == 0


@pytest.mark.parametrize(
    "messages",
    [
        [{"type": "http.request", "body": b"{", "more_body": True}, {"type": "http.disconnect"}],
        [{"type": "http.request", "body": b"{", "more_body": False}],  # 1 of the 2 declared
    ],
    ids=["the client left", "less than declared"],
)
def test_a_body_cut_short_runs_nothing_and_is_not_answered(messages):
    app = App()
    app.go.set()
    pending = list(messages)

    async def receive():
        return pending.pop(0)

    assert run(answered(asgi.Bridge(app, threads=1), receive)) is None
    assert app.ran == 0


def test_a_body_too_large_is_refused_in_json_and_runs_nothing(monkeypatch):
    monkeypatch.setattr(asgi, "LARGEST_BODY", 4)
    app = App()
    app.go.set()
    sent = []
    status = run(answered(asgi.Bridge(app, threads=1), whole(b'{"a": 1}'), sent=sent))
    assert status == 413
    assert (b"content-type", b"application/json") in sent[0]["headers"]
    assert json.loads(sent[1]["body"])["detail"].startswith("The request is too large")
    assert app.ran == 0
