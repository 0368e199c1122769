"""The application bin/serve runs: Django under an asyncio server (uvicorn workers).

Every request is answered by Django's WSGI handler, in a pool of ``THREADS`` threads,
as gunicorn's threads answered it before: sync views, persistent database connections,
one middleware chain. What the asyncio server adds is that no thread ever waits on a
client. A request reaches a thread only once it has fully arrived (the server reads the
headers, ``Bridge`` the body), and the thread hands back the whole answer, which the
event loop sends at the client's pace. So idle connections, or a client that sends half
a request or reads slowly, cost a socket, never a thread.

An event stream's answer (``api/events.py``: a StreamingHttpResponse whose body is
asynchronous) is sent from the event loop for as long as the stream lasts, and closed
when the client goes: thousands of phones hold one open at the price of a socket and a
few kilobytes each.

Why not Django's own ASGI handler: for sync views it starts a thread per request and
crosses between the loop and that thread several times a request. Measured on the same
machine in one run (bench/load.py --servers), it answered a bare view at about a quarter
of this bridge's rate; docs/deploy.md has the figures.
"""

import asyncio
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from io import BytesIO
from pathlib import Path

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scoresheet.settings")

django = get_wsgi_application()  # sets Django up, before the settings are read below

from django.conf import settings  # noqa: E402
from django.template import engines  # noqa: E402
from django.urls import get_resolver  # noqa: E402
from django.utils import translation  # noqa: E402

from matches import live  # noqa: E402
from scoresheet import collector  # noqa: E402

log = logging.getLogger(__name__)

# A body larger than this is refused before it is read any further (413).
LARGEST_BODY = max(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0, 1024 * 1024)


class Bridge:
    """An ASGI application answering HTTP with a WSGI application run in threads."""

    def __init__(self, app, threads):
        self.app = app
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="django")
        self.answering = 0  # requests in the threads now

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        if scope["type"] != "http":  # WebSockets: none here
            await send({"type": "websocket.close", "code": 1000})
            return
        body = await read_body(receive)
        if body is None:
            await send_whole(send, 413, [(b"content-type", b"text/plain")], b"Too large.\n")
            return
        loop = asyncio.get_running_loop()
        self.answering += 1
        try:
            status, headers, answer = await loop.run_in_executor(
                self.executor, self.respond, environ(scope, body)
            )
        finally:
            self.answering -= 1
            if not self.answering:  # every request's objects are garbage or kept
                collector.between_requests()
        if isinstance(answer, bytes):
            await send_whole(send, status, headers, answer)
        else:
            await self.stream(send, receive, status, headers, answer)

    def respond(self, environ):
        """In a thread: the WSGI application's answer, as (status, headers, body bytes),
        or with the body's asynchronous chunks in place of the bytes when that is to be
        streamed."""
        started = []

        def start_response(status, headers, exc_info=None):
            started[:] = [int(status.split(" ", 1)[0]), encode(headers)]
            return write_unsupported

        response = self.app(environ, start_response)
        if getattr(response, "is_async", False):  # a StreamingHttpResponse of an async body
            # The request is over but for its stream, which the loop sends: it ends here
            # (request_finished, in its own thread, as a WSGI server's close() sends it)
            # and lets go of the request. Kept for as long as the stream, a request and
            # all it made (about 150 objects, the URL resolver's lists, the session...)
            # were walked by every full collection of the garbage collector: with a
            # thousand streams open, pauses of 60 to 100 ms.
            chunks = response.streaming_content
            response.close()
            return (*started, chunks)
        try:
            body = b"".join(response)
        finally:
            if hasattr(response, "close"):
                response.close()
        return (*started, body)

    async def stream(self, send, receive, status, headers, chunks):
        """Send an asynchronous body as it comes, until it ends or the client goes."""
        await send({"type": "http.response.start", "status": status, "headers": headers})
        sending = asyncio.ensure_future(send_each(send, chunks))
        gone = asyncio.ensure_future(disconnected(receive))
        try:
            done, _pending = await asyncio.wait(
                {sending, gone}, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for task in (sending, gone):
                task.cancel()
            ended = await asyncio.gather(sending, gone, return_exceptions=True)
            await chunks.aclose()
        problem = ended[0]
        if isinstance(problem, Exception):
            log.error("A stream failed", exc_info=problem)
        if gone not in done:
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def lifespan(self, receive, send):
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await live.hub.stop()
                self.executor.shutdown(wait=False)
                await send({"type": "lifespan.shutdown.complete"})
                return


async def read_body(receive):
    """The whole body of the request, or None past ``LARGEST_BODY``."""
    parts, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b""  # the answer will go nowhere; the view sees what came
        part = message.get("body", b"")
        size += len(part)
        if size > LARGEST_BODY:
            return None
        parts.append(part)
        if not message.get("more_body", False):
            return b"".join(parts)


async def send_whole(send, status, headers, body):
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def send_each(send, chunks):
    async for chunk in chunks:
        await send({"type": "http.response.body", "body": chunk, "more_body": True})


async def disconnected(receive):
    while (await receive())["type"] != "http.disconnect":
        pass


def write_unsupported(data):
    raise NotImplementedError("write() is not offered: return the body instead")


def encode(headers):
    return [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers]


def environ(scope, body):
    """The WSGI environ of an ASGI HTTP request (PEP 3333's strings: latin-1 of bytes)."""
    root = scope.get("root_path", "")
    path = scope["path"]
    if root and path.startswith(root):
        path = path[len(root) :]
    server = scope.get("server") or ("localhost", 80)
    values = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": root.encode("utf-8").decode("latin-1"),
        "PATH_INFO": path.encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1] or 80),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        live.STREAMS: True,
    }
    client = scope.get("client")
    if client:
        values["REMOTE_ADDR"], values["REMOTE_PORT"] = client[0], str(client[1])
    for raw_name, raw_value in scope.get("headers", ()):
        name = raw_name.decode("latin-1")
        if "_" in name:
            # X_Forwarded_For would read as X-Forwarded-For in the environ: dropped, as
            # runserver and gunicorn drop them, so nobody writes a proxy's header.
            continue
        name = name.upper().replace("-", "_")
        if name == "CONTENT_LENGTH":
            continue  # the body's own length, as read
        key = name if name == "CONTENT_TYPE" else f"HTTP_{name}"
        value = raw_value.decode("latin-1")
        if key in values:
            value = values[key] + ("; " if key == "HTTP_COOKIE" else ",") + value
        values[key] = value
    return values


def settle():
    """Load now what the first requests would load (every view, the project's templates,
    each language's translations), then set it all aside from the garbage collector,
    and from then on what each full collection leaves (``collector``): its full
    collections, which come every few seconds under load, walk only what requests made
    since. Without this, one walked the whole app (about 110,000 objects) and every open
    stream, and held every thread of the worker for 60 to 110 ms, the worst answers of
    a loaded server."""
    get_resolver().check()  # imports every view
    engine = engines["django"]
    for directory in engine.dirs:
        for path in Path(directory).rglob("*.html"):
            engine.get_template(path.relative_to(directory).as_posix())
    for code, _name in settings.LANGUAGES:
        translation.activate(code)  # reads its catalogues
    translation.deactivate()
    collector.settle()


settle()
application = Bridge(django, threads=int(os.environ.get("THREADS") or 2))
