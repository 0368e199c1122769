"""The answer to a change is the sheet as the change left it, and the same as a fresh
reading: an entry and a redeal answer from what they read under their lock and kept up
as they changed (``Match._lock(sheet=True)``), every other change from the sheet read
again. Each answer here is set against the sheet read afresh at the same version.

Where this process kept a reading of the version a change locks (the phones' fetches of
the change before, or its notice: ``fragments.keep_reading``), the lock reads the
version alone and the change starts from that reading."""

import pickle
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches import fragments
from matches.api import base
from matches.models import Match

from .conftest import make_user
from .pages import HTMX, browser, text


def api(client, match, path, body):
    response = client.post(f"/api/matches/{match.pk}/{path}", body, format="json")
    assert response.status_code in (200, 201), response.content
    return response.json()


def afresh(client, match):
    return client.get(f"/api/matches/{match.pk}/").json()


@pytest.fixture
def busy(match, ana, ze):
    """A sheet with everything an answer shows: deals with a tie's extra pending, a
    revoke note, an open request for a seat (to the host), an entry to undo."""
    match.record(ana, deal=1, side="a", games=1)
    match.record(ana, deal=2, side="a", games=0)
    match.record(ana, deal=2, side="b", games=0)  # a tie: one extra pending
    match.add_note(ze, side="a", text="Rui revoked in deal 2")
    match.ask_for_seat(make_user("olga", "Olga"), token=match.join_token, position="b2")
    return match


def keep_reading(match):
    """What a phone's fetch of this version (or the change's notice) leaves kept."""
    fragments.keep_reading(Match.objects.one_sheet(pk=match.pk, acting=True))


@pytest.mark.parametrize("kept", [False, True], ids=["read-under-lock", "kept-reading"])
@pytest.mark.parametrize("who", ["ana", "ze"])  # the host, and a member of the other side
def test_each_change_answers_the_sheet_as_a_fresh_reading_would(api_as, busy, who, kept, request):
    person = request.getfixturevalue(who)
    client = api_as(person)
    steps = [
        ("entries/", {"deal": 3, "side": "b", "games": 1}),  # Zé's side: the tie's extra
        ("redeal/", {"deal": 4}),
        ("entries/", {"deal": 5, "side": "b", "games": 2}),
        ("undo/", {}),
        ("entries/", {"deal": 5, "side": "b", "games": 2}),
        ("entries/", {"deal": 6, "side": "b", "games": 0}),
    ]
    for path, body in steps:
        if kept:
            keep_reading(busy)
        answer = api(client, busy, path, body)
        assert answer == afresh(client, busy), path
    assert answer["notes"] and answer["deals"][-1]["b"] == 0


def test_the_entry_that_wins_answers_the_rubber_won(api_as, match, ana):
    client = api_as(ana)
    for deal in (1, 2, 3):
        api(client, match, "entries/", {"deal": deal, "side": "a", "games": 1})
    answer = api(client, match, "entries/", {"deal": 4, "side": "a", "games": 1})
    assert answer["status"] == "won"
    assert answer == afresh(client, match)


def test_an_entry_reads_nothing_after_it_has_written(api_as, busy, ana, ze):
    with CaptureQueriesContext(connection) as queries:
        api(api_as(ze), busy, "entries/", {"deal": 3, "side": "b", "games": 1})
    sql = [query["sql"] for query in queries]
    event = 'INSERT INTO "matches_event"'
    written = next(at for at, one in enumerate(sql) if one.startswith(event))
    assert not [one for one in sql[written:] if one.startswith("SELECT")], sql[written:]


def sheet_reads(queries):
    """The statements that read the sheet's rows (its match but for its version)."""
    tables = ("matches_deal", "matches_seat", "matches_revokenote", "matches_event")
    return [
        query["sql"]
        for query in queries
        if query["sql"].startswith("SELECT")
        and any(f'FROM "{table}"' in query["sql"] for table in tables)
    ]


def match_reads(queries):
    """The statements that read the match's own row (its version, or all of it)."""
    return [
        query["sql"]
        for query in queries
        if query["sql"].startswith("SELECT") and 'FROM "matches_match"' in query["sql"]
    ]


def test_an_entry_on_a_kept_reading_of_its_version_reads_the_version_alone(api_as, busy, ze):
    keep_reading(busy)
    with CaptureQueriesContext(connection) as queries:
        answer = api(api_as(ze), busy, "entries/", {"deal": 3, "side": "b", "games": 1})
    assert sheet_reads(queries) == []
    # Who may change it is the reading's to say too (its seats): no join on the seats.
    version = f'SELECT "version" FROM "matches_match" WHERE "id" = {busy.pk}'
    assert match_reads(queries) == [version, f"{version} FOR UPDATE"]
    assert answer["version"] == busy.version + 1
    assert answer == afresh(api_as(ze), busy)


def test_an_entry_on_a_kept_reading_unpickles_it_once(api_as, busy, ze, monkeypatch):
    keep_reading(busy)
    unpickled, unpickle = [], pickle.loads
    monkeypatch.setattr(
        pickle, "loads", lambda data: unpickled.append(found := unpickle(data)) or found
    )
    answer = api(api_as(ze), busy, "entries/", {"deal": 3, "side": "b", "games": 1})
    # Who may change it, then the change under its lock: the same reading (twice before).
    assert [type(found) for found in unpickled].count(Match) == 1
    assert answer == afresh(api_as(ze), busy)


def test_a_change_made_after_the_reading_was_found_is_acted_on(api_as, busy, ana, ze, monkeypatch):
    keep_reading(busy)
    check = base.valid

    def meanwhile(body, request):  # between finding who may change it and the lock
        Match.objects.get(pk=busy.pk).record(ana, deal=3, side="b", games=1)
        return check(body, request)

    monkeypatch.setattr(base, "valid", meanwhile)
    answer = api(api_as(ze), busy, "entries/", {"deal": 4, "side": "b", "games": 0})
    assert [deal["b"] for deal in answer["deals"]] == [0, 0, 1, 0]
    assert answer == afresh(api_as(ze), busy)


def test_a_kept_reading_refuses_a_stranger_as_the_database_would(api_as, busy):
    keep_reading(busy)
    stranger = api_as(make_user("eva", "Eva"))
    entry = {"deal": 3, "side": "b", "games": 1}
    response = stranger.post(f"/api/matches/{busy.pk}/entries/", entry, format="json")
    assert response.status_code == 404, response.content
    nowhere = stranger.post("/api/matches/999999/entries/", entry, format="json")
    assert response.json() == nowhere.json()
    assert Match.objects.get(pk=busy.pk).version == busy.version


def test_a_reading_kept_of_an_earlier_version_is_not_acted_on(api_as, busy, ana, ze):
    keep_reading(busy)
    Match.objects.get(pk=busy.pk).record(ana, deal=3, side="b", games=1)  # nothing kept
    with CaptureQueriesContext(connection) as queries:
        answer = api(api_as(ze), busy, "entries/", {"deal": 4, "side": "b", "games": 0})
    assert sheet_reads(queries)  # the version locked has no reading kept: read whole
    assert answer == afresh(api_as(ze), busy)
    assert [deal["b"] for deal in answer["deals"]] == [0, 0, 1, 0]


def test_the_page_answers_an_entry_with_the_sheet_its_poll_would_render(busy, ze):
    phone = browser(ze)
    answer = phone.post(f"/matches/{busy.pk}/entries/", {"deal": 3, "side": "b", "games": 1},
                        **HTMX)  # fmt: skip
    assert answer.status_code == 200
    poll = phone.get(f"/matches/{busy.pk}/sheet/", HTTP_IF_NONE_MATCH='"0-x"', **HTMX)
    assert poll.status_code == 200
    assert sheet_of(answer) == sheet_of(poll)
    assert f'data-version="{Match.objects.get(pk=busy.pk).version}"' in sheet_of(answer)


def sheet_of(response):
    """The sheet's section of a page's answer, its CSRF tokens (new each time) left out."""
    page = text(response)
    section = page[page.index('<section id="sheet"') :].split("</section>")[0]
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", section)
