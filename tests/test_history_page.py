"""The history page: a person's rubbers newest first, filters that work as a plain
GET form and swap only the list with htmx, paging, and each rubber's whole sheet,
notes and change history."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.nights import four_rubbers, many_rubbers, play
from tests.pages import HTMX, browser, text


@pytest.fixture
def rubbers(match, ana, ze):
    return four_rubbers(match, ana, ze)


def listed(page, rubbers):
    """The rubbers' positions in the page, as indexes into ``rubbers``, in page order."""
    found = [(page.find(f'href="/history/{m.pk}/"'), index) for index, m in enumerate(rubbers)]
    return [index for position, index in sorted(found) if position >= 0]


def test_newest_first_with_the_result_from_the_persons_side(rubbers, ze):
    page = text(browser(ze).get("/history/"))
    assert listed(page, rubbers) == [3, 2, 1, 0]
    assert page.count('class="outcome lost"') == 3
    assert page.count('class="outcome ended"') == 1
    assert "4 rubbers" in page
    assert f'href="/nights/{rubbers[0].night_id}/"' in page


def test_plain_get_filters_by_partner_and_result(rubbers, rui, ana, maria):
    client = browser(rui)
    page = text(client.get("/history/", {"partner": ana.pk}))
    assert listed(page, rubbers) == [3, 0]
    page = text(client.get("/history/", {"partner": maria.pk, "result": "won"}))
    assert listed(page, rubbers) == [1]
    page = text(client.get("/history/", {"result": "ended"}))
    assert listed(page, rubbers) == [2]


def test_filter_by_opponent_night_and_dates(rubbers, ana, ze):
    client = browser(ana)
    assert listed(text(client.get("/history/", {"opponent": ze.pk})), rubbers) == [3, 0]
    night = rubbers[0].night
    today = rubbers[0].created.date().isoformat()
    page = text(client.get("/history/", {"night": night.pk, "since": today, "until": today}))
    assert listed(page, rubbers) == [3, 2, 1, 0]
    assert listed(text(client.get("/history/", {"until": "2000-01-01"})), rubbers) == []


def test_htmx_swaps_only_the_list(rubbers, rui, ana):
    response = browser(rui).get("/history/", {"partner": ana.pk}, **HTMX)
    page = text(response)
    assert page.lstrip().startswith('<section id="rubbers"')
    assert "<html" not in page
    assert listed(page, rubbers) == [3, 0]


def test_the_filter_form_works_without_javascript(rubbers, rui):
    page = text(browser(rui).get("/history/"))
    assert '<form method="get" action="/history/"' in page
    assert 'hx-target="#rubbers"' in page


def test_a_bad_filter_says_why_and_is_ignored(rubbers, rui, olga):
    response = browser(rui).get("/history/", {"partner": olga.pk, "since": "yesterday"})
    assert response.status_code == 200
    page = text(response)
    assert "Select a valid choice" in page
    assert "Enter a valid date" in page
    assert listed(page, rubbers) == [3, 2, 1, 0]


def test_someone_elses_rubbers_never_show(rubbers, olga):
    page = text(browser(olga).get("/history/"))
    assert listed(page, rubbers) == []
    assert "0 rubbers" in page


def test_anonymous_is_sent_to_log_in(db):
    response = browser().get("/history/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_queries_stay_flat_from_1_to_500_rubbers_and_it_pages(match, ana, rui, ze, maria):
    client = browser(rui)

    def queries(path, **extra):
        with CaptureQueriesContext(connection) as captured:
            response = client.get(path, **extra)
        assert response.status_code == 200
        return len(captured.captured_queries), text(response)

    one, page = queries("/history/")
    assert "1 rubber" in page
    many_rubbers(match.night, ana, [ana, rui, ze, maria], 499)
    many, page = queries("/history/")
    # session, user, the nights and people to filter by, the count, the page, its seats
    assert many == one == 7
    assert "500 rubbers" in page
    assert "Page 1 of 25" in page
    assert len(re.findall(r'href="/history/\d+/"', page)) == 20
    filtered, page = queries(f"/history/?partner={ana.pk}&page=3", **HTMX)
    assert filtered == one
    assert "Page 3 of 25" in page
    assert 'href="/history/?partner=' in page  # paging keeps the filters


# One rubber: the whole sheet, read-only -------------------------------------------


def test_rubber_shows_its_sheet_notes_and_every_change(match, ana, rui, ze):
    play(match, ana, ("a", 0), ("b", 0), ("a", 2))
    match.correct(ana, number=2, a=3, b=0)
    note = match.add_note(ze, side="a", deal=2, text="Rui revoked: two off, by hand")
    match.withdraw_note(ana, note.pk)
    play(match, rui, ("a", 1))
    page = text(browser(rui).get(f"/history/{match.pk}/"))
    assert "Ana &amp; Rui – Zé &amp; Maria" in page
    assert "4 – 0" in page and "won" in page and "shutout" in page
    sheet = page[page.index('class="deals"') : page.index("</table>")]
    assert sheet.count("<tr>") == 5  # the header, three deals and the totals
    assert "tie" in sheet and "3–0" in sheet and "4–0" in sheet
    assert "Rui revoked: two off, by hand" in page
    assert "withdrawn" in page
    changes = page[page.index('class="changes"') :]
    assert "corrected a deal" in changes
    assert "2–0 → 3–0" in changes
    assert "withdrew a note" in changes
    assert changes.index("corrected a deal") < changes.index("withdrew a note")
    assert f'href="/matches/{match.pk}/export.csv"' in page


@pytest.mark.parametrize("who", ["ana", "rui", "ze", "maria"])
def test_host_and_players_see_a_rubber(request, match, who):
    person = request.getfixturevalue(who)
    assert browser(person).get(f"/history/{match.pk}/").status_code == 200


def test_outsider_gets_404_for_a_rubber(match, olga):
    assert browser(olga).get(f"/history/{match.pk}/").status_code == 404
    assert browser(olga).get("/history/999999/").status_code == 404


def test_the_back_button_restores_the_whole_page_not_the_list(rubbers, rui):
    restore = {**HTMX, "HTTP_HX_HISTORY_RESTORE_REQUEST": "true"}
    for path in ("/history/", "/standings/"):
        page = text(browser(rui).get(path, **restore))
        assert page.lstrip().startswith("<!doctype html>"), path
