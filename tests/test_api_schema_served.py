"""/api/schema/ on the production server: built once per process, never raced.

A fresh worker's first requests for the schema come together (a generator, a docs
page, a test suite's workers): each must get it, from the one build."""

import threading

from tests.servers import Gunicorn, exchange

JSON = {"Accept": "application/vnd.oai.openapi+json"}


def test_concurrent_first_requests_on_a_fresh_server_all_get_the_schema(cluster):
    server = Gunicorn(cluster.url, workers=1, threads=12).wait_ready()
    try:
        start = threading.Barrier(12)
        answers = []

        def ask():
            start.wait(timeout=10)
            status, _headers, body = exchange(server.port, "GET", "/api/schema/", headers=JSON)
            answers.append((status, body))

        askers = [threading.Thread(target=ask) for _ in range(12)]
        for asker in askers:
            asker.start()
        for asker in askers:
            asker.join(timeout=60)
        assert [status for status, _body in answers] == [200] * 12, server.output()
        assert len({body for _status, body in answers}) == 1  # the one build, every time
    finally:
        server.stop()
