"""What an open event stream keeps in the server's memory (scoresheet/asgi.py): its
reader, its listener and its place on the event loop, not the request that opened it
(its session, its URL resolver's lists), which thousands of open streams would each
keep alive, and each full collection of the garbage collector walk."""

import asyncio
import gc
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.handlers.wsgi import WSGIRequest
from django.db import connections
from django.test import Client

from matches import live


def closed():
    connections.close_all()
    time.sleep(0.1)


@pytest.fixture
def server_module():
    """scoresheet.asgi, loaded in this process, which is no worker."""
    import scoresheet.asgi

    return scoresheet.asgi


def test_an_open_stream_keeps_no_request_alive(transactional_db, match, ana, server_module):
    bridge = server_module.Bridge(server_module.django, threads=1)
    browser = Client()
    browser.force_login(ana)
    path = f"/api/matches/{match.pk}/events/"
    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": b"",
        "headers": [
            (b"host", b"testserver"),
            (b"cookie", f"sessionid={browser.cookies['sessionid'].value}".encode()),
            (b"accept", b"text/event-stream"),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "scheme": "http",
        "http_version": "1.1",
    }

    async def hold_it_open():
        gone, sent = asyncio.Event(), []
        asked = [{"type": "http.request", "body": b"", "more_body": False}]

        async def receive():
            if asked:
                return asked.pop()
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            sent.append(message)

        answering = asyncio.ensure_future(bridge(scope, receive, send))
        try:
            for _ in range(1000):  # up to 10 s for its first heartbeat
                if any(message.get("body") for message in sent):
                    break
                await asyncio.sleep(0.01)
            gc.collect()
            # type(), not isinstance(): a weak proxy among the objects may be dead.
            kept = [o for o in gc.get_objects() if type(o) is WSGIRequest and o.path == path]
        finally:
            gone.set()
            await answering
            # Every thread's own connection closed (each of the hub's threads takes one
            # of these at once), for the suite to drop its database at the end.
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(bridge.executor, connections.close_all)
            await asyncio.gather(*(live.hub.read(closed) for _ in range(2)))
            await live.hub.stop()
        return sent[0]["status"], kept

    # A loop of its own, in a thread of its own: this process may run one already (a
    # browser test's, before this one).
    with ThreadPoolExecutor(max_workers=1) as thread:
        status, kept = thread.submit(asyncio.run, hold_it_open()).result(timeout=30)
    assert status == 200
    assert kept == []
