"""The application bin/serve runs: Django under an asyncio server (uvicorn workers).

Every request is answered by Django's WSGI handler in a pool of ``THREADS`` threads, and
reaches a thread only once it has arrived whole: a body cut short (the phone lost the
Wi-Fi) runs nothing. The thread hands back the whole answer, which the event loop sends
at the client's pace, so an idle or slow client costs a socket, never a thread. An event
stream's answer (``matches/api/events.py``: an asynchronous body) is sent from the event
loop for as long as the stream lasts. Why this bridge rather than Django's own ASGI
handler or a2wsgi: docs/decisions/0001-the-server.md.
"""

import asyncio
import contextvars
import json
import logging
import os
import sys
import time
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
from matches.api import schema  # noqa: E402

log = logging.getLogger(__name__)

# A body larger than this is refused before it is read any further (413).
LARGEST_BODY = max(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0, 1024 * 1024)
# Seconds a client may take to send its body (408 past it).
BODY_TIME = 30.0
# Requests waiting for a thread, at most, a thread; past that, and for a request that
# waited longer than QUEUE_TIME seconds, 503 at once: nothing runs, the phone retries.
QUEUE_PER_THREAD = 32
QUEUE_TIME = 10.0

# What a transport says when the client has closed it under us (uvloop raises
# RuntimeError for a closed handle, asyncio an OSError).
CLIENT_GONE = (OSError, RuntimeError)


class ClientGone(Exception):
    """The client closed the connection before its request had arrived whole."""


# Set in a request's task when its client has left while it was answered.
client_left = contextvars.ContextVar("client_left", default=False)


class LeftUnfinished(logging.Filter):
    """On uvicorn's log: its complaint that an answer went unfinished, for a request whose
    client left meanwhile, is no error (uvicorn does not tell a request that its client
    left when more requests were pipelined behind it: the answer's write fails)."""

    def filter(self, record):
        return not client_left.get()


class Bridge:
    """An ASGI application answering HTTP with a WSGI application run in threads."""

    def __init__(self, app, threads):
        self.app = app
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="django")
        self.most_answering = threads * (1 + QUEUE_PER_THREAD)
        self.answering = 0  # requests in the threads' hands, running or waiting for one
        logging.getLogger("uvicorn.error").addFilter(LeftUnfinished())

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        if scope["type"] != "http":  # WebSockets: none here
            await send({"type": "websocket.close", "code": 1000})
            return
        try:
            async with asyncio.timeout(BODY_TIME):
                body = await read_body(receive, declared_length(scope))
        except ClientGone:
            log.info("%s %s: the client left before its request arrived whole; nothing ran",
                     scope["method"], scope["path"])  # fmt: skip
            return
        except TimeoutError:
            await answer(send, 408, "The request took too long to arrive: nothing was done.")
            return
        if body is None:
            await answer(send, 413, "The request is too large: nothing was done.")
            return
        if self.answering >= self.most_answering:
            await busy(send)
            return
        status, headers, reply = await self.run(environ(scope, body))
        try:
            if isinstance(reply, bytes):
                await send_whole(send, status, headers, reply)
            else:
                await self.stream(send, receive, status, headers, reply)
        except CLIENT_GONE:
            client_left.set(True)
            log.info("%s %s: the client left before its answer", scope["method"], scope["path"])

    async def run(self, environ):
        """The WSGI application's answer to ``environ``, from one of the threads; a 503
        that ran nothing if no thread took the request within ``QUEUE_TIME``."""
        loop = asyncio.get_running_loop()
        self.answering += 1
        sent_at = time.monotonic()
        try:
            return await loop.run_in_executor(self.executor, self.respond, environ, sent_at)
        finally:
            self.answering -= 1

    def respond(self, environ, sent_at):
        """In a thread: the answer, as (status, headers, body bytes), or with the body's
        asynchronous chunks in place of the bytes when it is to be streamed."""
        if time.monotonic() - sent_at > QUEUE_TIME:
            return 503, BUSY_HEADERS, BUSY
        started = []

        def start_response(status, headers, exc_info=None):
            started[:] = [int(status.split(" ", 1)[0]), encode(headers)]
            return write_unsupported

        response = self.app(environ, start_response)
        if getattr(response, "is_async", False):  # a StreamingHttpResponse of an async body
            # The request is over but for its stream, which the loop sends: it ends here
            # (request_finished, in its thread, as a WSGI server's close() sends it), and
            # the stream keeps nothing of the request.
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
        if isinstance(problem, CLIENT_GONE):
            raise problem
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


def declared_length(scope) -> int | None:
    """The body's length as the Content-Length header gives it, or None."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            return int(value) if value.isdigit() else None
    return None


async def read_body(receive, declared=None):
    """The whole body of the request, or None past ``LARGEST_BODY``. Raises ``ClientGone``
    when the client leaves before the last of it, or sends less than it declared."""
    parts, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        part = message.get("body", b"")
        size += len(part)
        if size > LARGEST_BODY:
            return None
        parts.append(part)
        if not message.get("more_body", False):
            if declared is not None and size != declared:
                raise ClientGone
            return b"".join(parts)


# The server's own refusals, before any view: JSON with a ``detail``, as the API's.
JSON = [(b"content-type", b"application/json")]
BUSY = b'{"detail": "The server is busy: try again in a moment. Nothing was done."}'
BUSY_HEADERS = [*JSON, (b"retry-after", b"1")]


async def busy(send):
    await send_whole(send, 503, BUSY_HEADERS, BUSY)


async def answer(send, status, sentence):
    await send_whole(send, status, JSON, json.dumps({"detail": sentence}).encode())


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


def warm():
    """Load now what the first requests would load (every view, the templates, each
    language's translations, the OpenAPI schema), so that no request waits for it and
    no two race to build it."""
    get_resolver().check()  # imports every view
    engine = engines["django"]
    for directory in engine.dirs:
        for path in Path(directory).rglob("*.html"):
            engine.get_template(path.relative_to(directory).as_posix())
    for code, _name in settings.LANGUAGES:
        translation.activate(code)  # reads its catalogues
    translation.deactivate()
    schema.warm()


warm()
application = Bridge(django, threads=int(os.environ.get("THREADS") or 2))
