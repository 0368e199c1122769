"""The answer to a change is the sheet as the change left it, read again in the
change's transaction, and the same as a fresh reading: each answer here is set against
the sheet read afresh at the same version. A change reads what it checks (who sits
where, the deals, the version) from the database under the match's lock, whatever this
process has kept of the sheet for its readers."""

import re

import pytest

from matches.api import base
from matches.models import Match, Seat

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


@pytest.mark.parametrize("who", ["ana", "ze"])  # the host, and a member of the other side
def test_each_change_answers_the_sheet_as_a_fresh_reading_would(api_as, busy, who, request):
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


def test_a_change_reads_who_may_make_it_from_the_database(api_as, busy, ze):
    phone = browser(ze)
    fetched = phone.get(f"/matches/{busy.pk}/sheet/", HTTP_IF_NONE_MATCH='"0-x"', **HTMX)
    assert fetched.status_code == 200  # his sheet, rendered and kept at this version
    # Taken out of his seat behind every back: no version moved, nothing announced.
    Seat.objects.filter(match=busy, user=ze).update(user=None)
    entry = {"deal": 3, "side": "b", "games": 1}
    response = api_as(ze).post(f"/api/matches/{busy.pk}/entries/", entry, format="json")
    assert response.status_code == 404, response.content
    page = phone.post(f"/matches/{busy.pk}/entries/", entry, **HTMX)
    assert page.status_code == 404
    assert not busy.deals.filter(number=3).exists()


def test_a_change_made_after_the_match_was_found_is_acted_on(api_as, busy, ana, ze, monkeypatch):
    check = base.valid

    def meanwhile(body, request):  # between finding who may change it and the lock
        Match.objects.get(pk=busy.pk).record(ana, deal=3, side="b", games=1)
        return check(body, request)

    monkeypatch.setattr(base, "valid", meanwhile)
    answer = api(api_as(ze), busy, "entries/", {"deal": 4, "side": "b", "games": 0})
    assert [deal["b"] for deal in answer["deals"]] == [0, 0, 1, 0]
    assert answer == afresh(api_as(ze), busy)


def test_a_stranger_is_refused_as_for_a_match_that_is_not_there(api_as, busy):
    stranger = api_as(make_user("eva", "Eva"))
    entry = {"deal": 3, "side": "b", "games": 1}
    response = stranger.post(f"/api/matches/{busy.pk}/entries/", entry, format="json")
    assert response.status_code == 404, response.content
    nowhere = stranger.post("/api/matches/999999/entries/", entry, format="json")
    assert response.json() == nowhere.json()
    assert Match.objects.get(pk=busy.pk).version == busy.version


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
