"""A whole club night of 64 pairs, every round played (2,016 series, 8,064 rubbers): its
standings, its projector and its JSON answer in the same number of queries as a
tournament of four pairs, and the projector's first load stays within the sheet's
weight (60 KB gzipped). The times are printed (timings live in bench/, not in asserts)."""

import time

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from tests.test_page_weight import BUDGET, weigh
from tests.tournaments import played_round_robin

PAGES = {
    "projector": lambda t: reverse("tournament_watch", args=[t.watch_token]),
    "projector's board": lambda t: reverse("tournament_watch_board", args=[t.watch_token]),
    "organiser's page": lambda t: reverse("tournament", args=[t.pk]),
    "API": lambda t: f"/api/tournaments/{t.pk}/",
}


def measure(client, url):
    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        response = client.get(url)
        took = time.perf_counter() - started
    assert response.status_code == 200, url
    return response, len(queries), took


def test_a_64_pair_night_reads_in_as_many_queries_as_a_small_one(ana):
    small, big = played_round_robin(ana, pairs=4, tables=2), played_round_robin(ana, pairs=64)
    assert big.progress().finished and big.progress().champion is not None
    client = APIClient()
    client.force_login(ana)
    lines = []
    for name, url in PAGES.items():
        _response, few, _ = measure(client, url(small))
        measure(client, url(big))  # the first, with its caches
        response, many, took = measure(client, url(big))
        lines.append(f"{name}: {many} queries, {took * 1000:.0f} ms")
        assert many == few, (name, few, many)
        if name == "projector":
            total, parts = weigh(response.content.decode(), client)
            lines[-1] += f", {total / 1024:.1f} KB gzipped"
            assert total <= BUDGET, parts
    print("\n64 pairs, 63 rounds played: " + "; ".join(lines))
