"""The tables mix's client: asyncio, one keep-alive connection a phone, as a browser keeps
(and, with push, one more for its event stream: bench/push.py).

A thread a phone would not keep thousands of phones on two cores, nor http.client tell
a connection the server closed from one that failed; this small HTTP/1.1 client does
both, one request at a time a connection. Before a step, each new phone is opened as a
browser opens the sheet (``open_phones``).

Every phone talks to the server at 127.0.0.1 from an address of its own in the loopback
network (``phone_address``), as every real phone has its own. From the one address
127.0.0.1, the client's connections to the server's one port shared that address's
ephemeral ports (32768 to 60999 by default): 8,000 streams and 8,000 phones' connections
at 2,000 tables took more than half of them, and for about 7 s in every 30 the kernel's
search for a free port cost the client a third of a core of system time, which the
server's answers waited for on two cores: no 30 s step at 2,000 tables held (p99 193 to
716 ms). With the port range widened, or an address a phone, those bursts are gone (p99
84 ms; 72 and 121 ms). No server pays that for its phones.
"""

import asyncio
import functools
import gc
import socket
import time
from html.parser import HTMLParser
from http.cookies import SimpleCookie


async def set_aside(when):
    """At ``when`` (the loop's time), once every phone's tasks have started: what the
    client holds for the whole step (its tables, phones, connections, streams and the
    coroutines waiting on them) set aside from its garbage collector, and no full
    collection until the step ends; ``handed_back`` puts both back.

    Without it each full collection of the client walked it all, 110 to 190 ms with
    2,000 tables, and held every phone meanwhile: the server heard nothing from anyone,
    then the entries and fetches held up came in together, a burst that tables of
    independent phones never send, and the server's slowest answers were those. Set
    aside, what it holds was still walked by the full collections of what the step made
    since (the connections made again after the server closed idle ones): 87 to 197 ms,
    three times in 90 s at 2,000 tables. The young generations are still collected, and
    a step lasts a minute or two."""
    await asyncio.sleep(max(0.0, when - asyncio.get_running_loop().time()))
    gc.collect()
    gc.freeze()
    young, middle, _older = gc.get_threshold()
    _thresholds.append(gc.get_threshold())
    gc.set_threshold(young, middle, NEVER)


_thresholds = []  # the collector's thresholds before set_aside
NEVER = 2**30  # a threshold no count of collections reaches


def handed_back():
    """What ``set_aside`` set aside goes back to the collector, with its thresholds."""
    gc.unfreeze()
    if _thresholds:
        gc.set_threshold(*_thresholds.pop())


def phone_address(number) -> str:
    """The address phone ``number`` (0, 1, 2, ...) connects from: 127.1.0.1 onwards, one a
    phone, in the loopback network that Linux answers on whole; 127.0.0.1 for every phone
    where only that one is there to bind."""
    if not _loopback_network():
        return "127.0.0.1"
    high, low = divmod(number, 254)
    return f"127.{1 + high // 256}.{high % 256}.{1 + low}"


@functools.cache
def _loopback_network() -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.1.0.1", 0))
        except OSError:
            return False
    return True


class Failed(Exception):
    """A request that got no answer: the connection failed or it timed out."""


class Connection:
    """One phone's keep-alive HTTP/1.1 connection, one request at a time.

    gunicorn closes a connection idle for its keep-alive time (2 s, the poll's own
    period), so a request on a reused connection that the server closed meanwhile is
    sent again once on a new connection, as browsers do; ``reconnects`` counts those.
    """

    def __init__(self, port, counters, address="127.0.0.1"):
        self.port = port
        self.counters = counters
        self.address = address  # what it connects from: its phone's (``phone_address``)
        self.reader = self.writer = None
        self.lock = asyncio.Lock()

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(self, method, path, headers, body=b"", timeout=10.0):
        """(status, headers with lower-case names, body); raises Failed. The headers'
        ``set-cookie`` is the list of every cookie set, as a server may set several."""
        try:
            return await asyncio.wait_for(self._request(method, path, headers, body), timeout)
        except TimeoutError:  # before OSError, of which it is one
            self.close()
            raise Failed(f"no answer in {timeout:g} s") from None
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as e:
            self.close()
            raise Failed(f"{type(e).__name__}: {e}") from None

    async def _request(self, method, path, headers, body):
        lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if body:
            lines.append(f"Content-Length: {len(body)}")
        message = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        for attempt in range(2):
            fresh = self.writer is None or self.reader.at_eof() or self.writer.is_closing()
            if fresh:
                self.close()
                self.reader, self.writer = await asyncio.open_connection(
                    "127.0.0.1", self.port, local_addr=(self.address, 0)
                )
                self.counters["connections"] += 1
            try:
                self.writer.write(message)
                await self.writer.drain()
                head = await self.reader.readuntil(b"\r\n\r\n")
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if fresh or attempt:
                    raise
                self.counters["reconnects"] += 1
                continue
            break
        status_line, *header_lines = head[:-4].decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        answer, cookies = {}, []
        for line in header_lines:
            name, _colon, value = line.partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "set-cookie":
                cookies.append(value)
            else:
                answer[name] = value
        answer["set-cookie"] = cookies
        if status == 304 or status < 200 or method == "HEAD":
            content = b""
        elif "content-length" in answer:
            content = await self.reader.readexactly(int(answer["content-length"]))
        elif answer.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunks.append(await self.reader.readexactly(size + 2))
                if size == 0:
                    break
            content = b"".join(chunk[:-2] for chunk in chunks)
        else:  # the body runs to the end of the connection
            content = await self.reader.read()
            self.close()
        if answer.get("connection", "").lower() == "close":
            self.close()
        return status, answer, content


# Opening a phone ---------------------------------------------------------------------


class Unplayable(Exception):
    """A phone cannot sit at its table: no sheet page, no poll URL in it, no ETag."""


class PollFinder(HTMLParser):
    """The hx-get of the element that polls (hx-trigger "every ..."), unescaped; and
    the event stream the page holds open (its sse-connect)."""

    def __init__(self):
        super().__init__()
        self.found = self.events = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if (
            self.found is None
            and "every" in (attrs.get("hx-trigger") or "")
            and attrs.get("hx-get")
        ):
            self.found = attrs["hx-get"]
        if self.events is None and attrs.get("sse-connect"):
            self.events = attrs["sse-connect"]


async def fetch_sheet(connection, phone, problem, what, sending=None):
    """The phone's sheet fetched as htmx fetches it (``poll_headers``), on its connection
    once no other request of the phone's is under way: (its kind, ``what``-304 or
    ``what``-200, or None for anything else; the status or None; the seconds it took).
    A 200 gives the phone its new ETag. ``sending()`` is called as it leaves; what went
    wrong is told to ``problem``."""
    async with connection.lock:
        began = time.perf_counter()
        if sending is not None:
            sending()
        try:
            status, headers, _body = await connection.request(
                "GET", phone.poll, poll_headers(phone)
            )
        except Failed as failure:
            status, headers = None, {}
            problem(f"{what}: {failure}")
        took = time.perf_counter() - began
    if status == 304:
        return f"{what}-304", status, took
    if status == 200 and headers.get("etag"):
        phone.etag = headers["etag"]
        return f"{what}-200", status, took
    if status is not None:
        problem(f"{what}: {status}")
    return None, status, took


def kept_cookies(cookie, set_cookies):
    """The Cookie header ``cookie`` becomes once the cookies of ``set_cookies`` (Set-Cookie
    values) are kept, as a browser keeps them: each by its name, its attributes left out."""
    jar = SimpleCookie()
    jar.load(cookie)
    for value in set_cookies:
        jar.load(value)
    return "; ".join(f"{name}={morsel.coded_value}" for name, morsel in jar.items())


def poll_headers(phone):
    """A phone's poll as htmx sends it: its session, and the ETag it holds if any."""
    headers = {"Cookie": phone.cookie, "HX-Request": "true"}
    if phone.etag:
        headers["If-None-Match"] = phone.etag
    return headers


async def open_phones(port, tables, concurrency=4):
    """Each new phone loads its sheet page once, finds the poll URL in it, and polls
    once without an ETag for the ETag it then holds (not measured)."""
    counters = {"connections": 0, "reconnects": 0}
    limit = asyncio.Semaphore(concurrency)

    async def open_one(phone):
        async with limit:
            connection = Connection(port, counters, phone.address)
            try:
                page = f"/matches/{phone.table.match}/"
                status, headers, body = await connection.request(
                    "GET", page, {"Cookie": phone.cookie}
                )
                if status != 200:
                    raise Unplayable(f"GET {page} answered {status}: {body[:300]!r}")
                # As a browser keeps them: the CSRF cookie the page's forms set, which
                # every later request of the phone sends (without it, each fetch would
                # make the phone a new CSRF secret and set it again).
                phone.cookie = kept_cookies(phone.cookie, headers["set-cookie"])
                finder = PollFinder()
                finder.feed(body.decode())
                if not finder.found:
                    raise Unplayable(
                        f"the sheet page GET {page} has no element with an hx-get and "
                        'an hx-trigger of "every ...": the poll URL cannot be found (did the '
                        "page's markup change? see PollFinder in bench/client.py)"
                    )
                phone.poll, phone.events = finder.found, finder.events
                status, headers, body = await connection.request(
                    "GET", phone.poll, poll_headers(phone)
                )
                if status != 200 or not headers.get("etag"):
                    raise Unplayable(
                        f"the first poll GET {phone.poll} answered {status} "
                        f"with ETag {headers.get('etag')!r}: {body[:300]!r}"
                    )
                phone.etag = headers["etag"]
                phone.table.version = int(phone.etag.strip('W/"').split("-")[0])
            except Failed as failure:
                raise Unplayable(
                    f"opening a phone of match {phone.table.match}: {failure}"
                ) from None
            finally:
                connection.close()

    await asyncio.gather(
        *(open_one(phone) for table in tables for phone in table.phones if phone.poll is None)
    )
