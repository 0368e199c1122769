"""The sheet in a notice (matches/live.py): on PostgreSQL an entry's or a redeal's notice
carries the sheet as that change read it, signed, and a process holding streams of that
match keeps it, so its phones' fetches of that version read nothing but the version."""

import json
import pickle

import pytest
from django.core import signing
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches import fragments, live

from .pages import HTMX, browser, text
from .test_poll import poll_of


@pytest.fixture
def notices(monkeypatch):
    """The notices sent once each change commits, as PostgreSQL would carry them."""
    sent = []
    monkeypatch.setattr(live, "_send", sent.append)
    return sent


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """``committed(change, *args, **kwargs)``: the change made and committed (its
    on-commit work done: the notice sent, the reading kept)."""

    def commit(change, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return change(*args, **kwargs)

    return commit


@pytest.fixture
def forgetful(settings):
    """This process keeps nothing of its own: it is the other one."""
    fragments.caches["sheets"].clear()
    yield
    fragments.caches["sheets"].clear()


def test_an_entrys_notice_carries_the_sheet_it_left(match, ana, notices, committed):
    committed(match.record, ana, deal=1, side="a", games=2)
    (notice,) = map(json.loads, notices)
    pk, version, reading = live.sheet_in(notice["sheet"])
    sheet = pickle.loads(reading)
    assert (sheet.pk, sheet.version) == (pk, version) == (match.pk, notice["version"])
    assert version == match.version
    assert [(deal.a, deal.b) for deal in sheet.deal_list()] == [(2, 0)]
    assert sheet.latest_entry().by_id == ana.pk


def test_other_changes_and_a_rubber_won_carry_no_sheet(match, ana, ze, notices, committed):
    committed(match.record, ana, deal=1, side="a", games=1)
    committed(match.undo, ana)
    committed(match.add_note, ze, side="a", text="Rui revoked")
    for deal in (1, 2, 3, 4):
        committed(match.record, ana, deal=deal, side="a", games=1)
    carried = ["sheet" in json.loads(notice) for notice in notices]
    assert carried == [True, False, False, True, True, True, False]  # the last won it


def test_a_sheet_signed_by_anyone_else_is_refused(match, ana, notices, committed):
    committed(match.record, ana, deal=1, side="a", games=1)
    signed = json.loads(notices[0])["sheet"]
    packed, _signature = signed.rsplit(":", 1)
    assert live.sheet_in(f"{packed}:{'A' * 43}") is None
    assert live.sheet_in(signing.Signer(salt="another").sign(packed)) is None


def test_the_other_process_serves_the_sheet_from_the_notice(
    match, ana, ze, notices, committed, forgetful
):
    phone = browser(ze)
    url, _etag = poll_of(phone, match)
    hub = live.Hub()
    hub.subscribe(live.match_topic(match.pk))  # Zé's stream, held by this process
    committed(match.record, ana, deal=1, side="a", games=1)
    fragments.caches["sheets"].clear()  # what the change's own process kept
    hub.deliver(notices[-1])
    with CaptureQueriesContext(connection) as queries:
        seen = phone.get(url, HTTP_IF_NONE_MATCH='"0-x"', **HTMX)
    assert seen.status_code == 200
    assert len(queries) == 1, [query["sql"] for query in queries]  # the version
    assert "Nós: 0 games, Eles: 1 game." in text(seen)
    assert f'data-version="{match.version}"' in text(seen)


def test_a_process_with_no_stream_of_the_match_keeps_nothing(
    match, ana, notices, committed, forgetful
):
    committed(match.record, ana, deal=1, side="a", games=1)
    fragments.caches["sheets"].clear()
    live.Hub().deliver(notices[-1])
    assert fragments.reading_at(match.pk, match.version) is None


def test_a_notice_is_kept_as_it_came_and_only_where_nothing_is_kept(
    match, ana, notices, committed, forgetful, monkeypatch
):
    hub = live.Hub()
    hub.subscribe(live.match_topic(match.pk))
    committed(match.record, ana, deal=1, side="a", games=1)
    fragments.caches["sheets"].clear()
    unpickled, unpickle = [], pickle.loads
    monkeypatch.setattr(pickle, "loads", lambda data: unpickled.append(data) or unpickle(data))
    hub.deliver(notices[-1])  # on the loop, where a stream's every wait is
    assert unpickled == []
    monkeypatch.setattr(pickle, "loads", unpickle)
    assert fragments.reading_at(match.pk, match.version).deal_list()[0].a == 1
    # Where the reading is kept already (the process that made the change), the notice's
    # sheet is not even unsigned.
    monkeypatch.setattr(live, "sheet_in", lambda signed: pytest.fail("read again"))
    hub.deliver(notices[-1])


def test_an_entry_pickles_its_reading_once_for_its_notice_and_its_fetches(
    match, ana, api_as, notices, forgetful, django_capture_on_commit_callbacks, monkeypatch
):
    made, pickle_it = [], fragments.pickled
    monkeypatch.setattr(fragments, "pickled", lambda reading: made.append(1) or pickle_it(reading))
    with django_capture_on_commit_callbacks(execute=True):
        answer = api_as(ana).post(
            f"/api/matches/{match.pk}/entries/", {"deal": 1, "side": "a", "games": 2}, format="json"
        )
    assert answer.status_code == 201, answer.content
    assert len(made) == 1  # twice before: the notice's, then the one kept for the fetches
    _pk, version, carried = live.sheet_in(json.loads(notices[-1])["sheet"])
    kept = fragments.caches["sheets"].get(fragments._reading_name(match.pk, version))
    assert carried == kept
    assert pickle.loads(kept).deal_list()[0].a == 2
