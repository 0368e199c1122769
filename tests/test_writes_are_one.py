"""A 503 means nothing happened: a write and its answer are one transaction, so when the
answer cannot be read (the database went away between the change and the read), the
change is rolled back with it and the client told to retry can retry safely, with or
without an Idempotency-Key. On the suite's PostgreSQL."""

import pytest
from django.db import OperationalError

from matches.models import Event, Match

from .nights import play
from .pages import HTMX, browser


@pytest.fixture
def answer_out_of_reach(monkeypatch):
    """Reading a sheet fails as when PostgreSQL is restarted under the request."""

    def gone(*args, **kwargs):
        raise OperationalError("terminating connection due to administrator command")

    def cut(module):
        monkeypatch.setattr(module, "view", gone)  # what the change's answer shows

    return cut


def test_an_api_undo_whose_answer_fails_undoes_nothing(api_as, match, rui, answer_out_of_reach):
    from matches.api import base

    play(match, rui, ("a", 1), ("a", 2))
    version = Match.objects.get(pk=match.pk).version
    answer_out_of_reach(base)

    response = api_as(rui).post(f"/api/matches/{match.pk}/undo/", {}, format="json")

    assert response.status_code == 503
    assert response["Retry-After"]
    assert Match.objects.get(pk=match.pk).version == version
    assert [(deal.a, deal.b) for deal in Match.objects.get(pk=match.pk).deal_list()] == [
        (1, 0),
        (2, 0),
    ]
    assert not Event.objects.filter(match=match, action=Event.UNDO).exists()


def test_an_api_rematch_whose_answer_fails_starts_nothing(api_as, match, ana, answer_out_of_reach):
    from matches.api import base

    play(match, ana, ("a", 4, "sweep"))
    answer_out_of_reach(base)

    response = api_as(ana).post(f"/api/matches/{match.pk}/rematch/", {}, format="json")

    assert response.status_code == 503
    assert not Match.objects.filter(previous=match).exists()


def test_a_tap_whose_answer_fails_records_nothing(match, rui, answer_out_of_reach):
    from matches.views import playing

    answer_out_of_reach(playing)
    body = {"deal": "1", "side": "a", "games": "1"}

    response = browser(rui).post(f"/matches/{match.pk}/entries/", body, **HTMX)

    assert response.status_code == 503
    assert Match.objects.get(pk=match.pk).deal_list() == []
