"""A request runs only if it arrived whole: a phone that loses the café's Wi-Fi halfway
through sending a tap changes nothing, and its retry with the same Idempotency-Key gets
the answer the whole request deserves. A client that leaves is no error in the log.

On the app as ``bin/run`` serves it, over real sockets: the server reads the body."""

import socket
import time
from pathlib import Path

from rest_framework.authtoken.models import Token

from matches.models import Match

from .servers import exchange

CSRF = "k" * 32  # a CSRF secret of the browser's own, sent back in the header as htmx does


def send_and_go(app, method, path, body, *, sent, headers=()):
    """Send ``path`` a request whose Content-Length is all of ``body``, but only its
    first ``sent`` bytes, then close the connection: a phone losing the network."""
    lines = [
        f"{method} {path} HTTP/1.1",
        f"Host: 127.0.0.1:{app.port}",
        f"Content-Length: {len(body)}",
        *headers,
    ]
    with socket.create_connection(("127.0.0.1", app.port), timeout=5) as connection:
        connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body[:sent])
        time.sleep(0.2)
    time.sleep(0.5)  # what the server would do with it, it has done by now


def api_headers(user):
    token = Token.objects.get_or_create(user=user)[0].key
    return [f"Authorization: Token {token}", "Content-Type: application/json"]


def test_an_end_cut_short_ends_nothing(app, match, ana):
    body = b'{"version": %d}' % match.version
    path = f"/api/matches/{match.pk}/end/"
    send_and_go(app, "POST", path, body, sent=8, headers=api_headers(ana))
    match.refresh_from_db()
    assert (match.status, match.version) == (Match.IN_PLAY, 4)

    status, _headers, _raw = exchange(
        app.port, "POST", f"/api/matches/{match.pk}/end/", {"version": match.version},
        {"Authorization": api_headers(ana)[0].split(": ", 1)[1]},
    )  # fmt: skip
    assert status == 200


def test_a_form_post_cut_short_ends_nothing(app, match, ana):
    from .conftest import session_cookie

    session = session_cookie(ana, app.url)
    headers = [
        f"Cookie: {session['name']}={session['value']}; csrftoken={CSRF}",
        f"X-CSRFToken: {CSRF}",
        "HX-Request: true",
        "Content-Type: application/x-www-form-urlencoded",
        f"Origin: {app.url}",
        f"Referer: {app.url}/matches/{match.pk}/",
    ]
    body = f"version={match.version}".encode()
    send_and_go(app, "POST", f"/matches/{match.pk}/end/", body, sent=3, headers=headers)
    match.refresh_from_db()
    assert (match.status, match.version) == (Match.IN_PLAY, 4)

    # Sent whole, the same request ends it.
    send_and_go(app, "POST", f"/matches/{match.pk}/end/", body, sent=len(body), headers=headers)
    match.refresh_from_db()
    assert match.status == Match.ENDED


def test_an_undo_cut_short_undoes_nothing_and_its_retry_is_answered(app, match, ana, ze):
    match.record(ana, deal=1, side="a", games=1)
    match.record(ze, deal=2, side="b", games=2)
    match.refresh_from_db()
    headers = {"Authorization": api_headers(ana)[0].split(": ", 1)[1], "Idempotency-Key": "u-1"}
    meant = {"deal": 1, "side": "a", "version": match.version}
    body = b'{"deal": 1, "side": "a", "version": %d}' % match.version
    send_and_go(
        app, "POST", f"/api/matches/{match.pk}/undo/", body, sent=10,
        headers=[*api_headers(ana), "Idempotency-Key: u-1"],
    )  # fmt: skip
    assert [(deal.a, deal.b) for deal in match.deals.all()] == [(1, 0), (0, 2)]

    # The phone sends its tap again, whole, with the same key: the truth, not a 422.
    status, _headers, raw = exchange(
        app.port, "POST", f"/api/matches/{match.pk}/undo/", meant, headers
    )
    assert status == 409, raw
    assert b"Z\\u00e9's 2 for" in raw or "Zé's 2 for".encode() in raw
    assert [(deal.a, deal.b) for deal in match.deals.all()] == [(1, 0), (0, 2)]


def test_clients_that_leave_before_their_answer_are_no_error(app, match, ana):
    log = Path(app.log)
    start = log.stat().st_size
    request = (
        f"GET /api/matches/{match.pk}/ HTTP/1.1\r\nHost: 127.0.0.1\r\n{api_headers(ana)[0]}\r\n\r\n"
    ).encode()
    for _ in range(20):
        with socket.create_connection(("127.0.0.1", app.port), timeout=5) as connection:
            connection.sendall(request * 10)  # pipelined, then gone without reading
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
    time.sleep(1)
    said = log.read_bytes()[start:].decode(errors="replace")
    assert "ERROR" not in said and "Traceback" not in said, said[-3000:]
