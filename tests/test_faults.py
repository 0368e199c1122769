"""PostgreSQL restarts under a running gunicorn while players write.

The test starts a PostgreSQL cluster of its own (it restarts it, so it cannot
be the suite's), migrates it, and starts gunicorn on it with production
settings. Four clients, each keeping the sheet of its own match, enter deals in
a loop; PostgreSQL is restarted under them (pg_ctl restart -m fast, which cuts
every open connection). Once it is back, every request succeeds again without
touching gunicorn (CONN_HEALTH_CHECKS replaces the dead connections), and every
entry that was answered 201 is in the database.
"""

import threading
import time

from .servers import request

CLIENTS = 4
BEFORE, AFTER = 1.0, 2.0  # seconds of writing before the restart and after it is back


class Writer(threading.Thread):
    """A host keeping the sheet of their own match alone: 0 for side a, then 0 for
    side b (a tie), deal after deal, so every entry is accepted. After a failure it
    reads the sheet back to learn where it is, as a phone that reloads would."""

    def __init__(self, port, stop, writing):
        super().__init__()
        self.port, self.stop, self.writing = port, stop, writing
        self.accepted = []  # (deal, side) answered 201
        self.calls = []  # (started at, outcome): a status, or the error
        status, body = request(port, "POST", "/api/auth/guest/", {"name": "Ana"})
        assert status == 201, body
        self.token = body["token"]
        seats = {"a1": "Ana", "a2": "Rui", "b1": "Zé", "b2": "Maria"}
        status, body = self.send("POST", "/api/matches/", {"seats": seats, "host_seat": "a1"})
        assert status == 201, body
        self.match = body["id"]
        self.deal, self.side = 1, "a"

    def send(self, method, path, body=None):
        started = time.monotonic()
        try:
            status, answer = request(self.port, method, path, body, token=self.token, timeout=5)
        except OSError as error:
            status, answer = None, str(error)
        self.calls.append((started, status))
        return status, answer

    def resync(self):
        status, sheet = self.send("GET", f"/api/matches/{self.match}/")
        if status != 200:
            return False
        deal = sheet["current_deal"]
        row = next((d for d in sheet["deals"] if d["number"] == deal), None)
        self.deal, self.side = deal, "b" if row and row["a"] is not None else "a"
        return True

    def run(self):
        while not self.stop.is_set():
            if not self.writing.wait(timeout=0.05):
                continue
            entry = {"deal": self.deal, "side": self.side, "games": 0}
            status, _answer = self.send("POST", f"/api/matches/{self.match}/entries/", entry)
            if status == 201:
                self.accepted.append((self.deal, self.side))
                self.deal, self.side = (
                    (self.deal, "b") if self.side == "a" else (self.deal + 1, "a")
                )
                continue
            while not self.stop.is_set() and not self.resync():
                time.sleep(0.05)


def test_a_postgresql_restart_loses_no_accepted_entry(cluster, server):
    stop, writing = threading.Event(), threading.Event()
    writers = [Writer(server.port, stop, writing) for _ in range(CLIENTS)]
    for writer in writers:
        writer.start()
    try:
        # Restarted under load: the writers' requests fail while it is down.
        writing.set()
        time.sleep(BEFORE)
        cut = time.monotonic()
        cluster.restart()
        back = time.monotonic()
        time.sleep(AFTER)
        # Restarted while all is quiet: every pooled connection is dead, and only the
        # health check finds out before a request would fail on one.
        writing.clear()
        time.sleep(0.5)
        cluster.restart()
        back_again = time.monotonic()
        writing.set()
        time.sleep(AFTER)
    finally:
        stop.set()
        for writer in writers:
            writer.join(timeout=30)
    assert not any(writer.is_alive() for writer in writers)
    assert server.process.poll() is None, "gunicorn itself must keep running"

    calls = [call for writer in writers for call in writer.calls]
    down = [status for started, status in calls if cut <= started < back]
    assert any(status is None or status >= 500 for status in down), "the restart cut nobody off"
    for since, until in ((back, back_again - 1), (back_again, float("inf"))):
        after = [status for started, status in calls if since <= started < until]
        failures = [status for status in after if status is None or status >= 500]
        assert not failures, failures
        assert sum(status == 201 for status in after) > 10, after

    # Every entry answered 201 is in the database, read back through the app.
    for writer in writers:
        status, sheet = request(
            server.port, "GET", f"/api/matches/{writer.match}/", token=writer.token
        )
        assert status == 200
        cells = {
            (d["number"], side) for d in sheet["deals"] for side in "ab" if d[side] is not None
        }
        assert set(writer.accepted) <= cells, set(writer.accepted) - cells
        assert len(writer.accepted) > 5
