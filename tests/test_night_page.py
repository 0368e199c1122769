"""The night page: its rubbers in order with results and marks, the tally per pair
and per player, exports, renaming, and who may see it."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from matches.models import Match, Night
from tests.conftest import SEAT_NAMES
from tests.nights import four_rubbers, many_rubbers
from tests.pages import browser, text


@pytest.fixture
def rubbers(match, ana, ze):
    return four_rubbers(match, ana, ze)


def url(night_id):
    return f"/nights/{night_id}/"


def test_rubbers_in_order_with_results_and_marks(rubbers, rui):
    response = browser(rui).get(url(rubbers[0].night_id))
    assert response.status_code == 200
    page = text(response)
    positions = [page.index(f'href="/history/{rubber.pk}/"') for rubber in rubbers]
    assert positions == sorted(positions)
    assert "Ana &amp; Rui won" in page
    assert "Rui &amp; Maria won" in page
    assert "ended early by Zé" in page
    for mark in ("shutout", "bandeira", "chapéu"):
        assert f'<span class="mark">{mark}</span>' in page


def test_tally_per_pair_and_per_player(rubbers, ze):
    page = text(browser(ze).get(url(rubbers[0].night_id)))
    pairs = page[page.index('id="pairs-title"') : page.index('id="players-title"')]
    players = page[page.index('id="players-title"') :]
    assert (
        pairs.index("Ana &amp; Rui")
        < pairs.index("Rui &amp; Maria")
        < pairs.index("Zé &amp; Maria")
    )
    assert "2 of 2" in pairs  # Ana & Rui won both their rubbers
    assert "1 shutout" in pairs and "1 chapéu" in pairs and "1 bandeira" in pairs
    assert players.index("Rui") < players.index("Ana") < players.index("Maria")
    assert "3 of 4" in players  # Rui
    assert "1 ended early" in players


def test_export_links_and_the_next_rubber_for_the_host(rubbers, ana, rui):
    night_id = rubbers[0].night_id
    page = text(browser(ana).get(url(night_id)))
    assert f'href="/nights/{night_id}/export.csv"' in page
    assert f'href="/nights/{night_id}/export.json"' in page
    assert f'href="/matches/{rubbers[-1].pk}/next/"' in page
    assert "/next/" not in text(browser(rui).get(url(night_id)))


def test_no_next_rubber_while_the_last_is_in_play(match, ana):
    assert "/next/" not in text(browser(ana).get(url(match.night_id)))


@pytest.mark.parametrize("who", ["ana", "rui", "ze", "maria"])
def test_host_and_players_see_the_night(request, rubbers, who):
    person = request.getfixturevalue(who)
    assert browser(person).get(url(rubbers[0].night_id)).status_code == 200


def test_outsider_gets_404_and_anonymous_is_sent_to_log_in(rubbers, olga):
    night_id = rubbers[0].night_id
    assert browser(olga).get(url(night_id)).status_code == 404
    assert browser(olga).get(url(999)).status_code == 404
    response = browser().get(url(night_id))
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_night_is_named_by_its_date_unless_given_a_name_and_place(ana):
    match = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    assert match.night.name == timezone.localdate().strftime("%Y-%m-%d")
    assert match.night.place == ""
    named = Match.objects.start(ana, SEAT_NAMES, night_name=" Friday  at Rui's ", place="Porto")
    assert (named.night.name, named.night.place) == ("Friday at Rui's", "Porto")


def test_host_renames_the_night_and_a_blank_name_is_the_date(match, ana):
    night_id = match.night_id
    response = browser(ana).post(url(night_id), {"name": "Sexta", "place": "Café Central"})
    assert response.status_code == 302
    night = Night.objects.get(pk=night_id)
    assert (night.name, night.place) == ("Sexta", "Café Central")
    assert "Sexta · Café Central" in text(browser(ana).get(url(night_id)))
    browser(ana).post(url(night_id), {"name": "", "place": ""})
    assert Night.objects.get(pk=night_id).name == timezone.localdate().strftime("%Y-%m-%d")


def test_only_the_host_renames_the_night(match, rui, olga):
    night_id = match.night_id
    response = browser(rui).post(url(night_id), {"name": "Mine", "place": ""})
    assert response.status_code == 403
    assert "Only the night&#x27;s host can rename it." in text(response)
    assert browser(olga).post(url(night_id), {"name": "Mine"}).status_code == 404
    assert Night.objects.get(pk=night_id).name != "Mine"


def test_queries_stay_flat_from_1_to_500_rubbers_and_the_list_pages(
    match, ana, rui, ze, maria, django_assert_num_queries
):
    night_id = match.night_id
    client = browser(rui)

    def queries(path):
        with CaptureQueriesContext(connection) as captured:
            response = client.get(path)
        assert response.status_code == 200
        return len(captured.captured_queries), text(response)

    one, page = queries(url(night_id))
    assert "1 rubber" in page
    many_rubbers(match.night, ana, [ana, rui, ze, maria], 499)
    many, page = queries(url(night_id))
    assert many == one == 5  # session, user, night, its rubbers, their seats
    assert "500 rubbers" in page
    assert "Page 1 of 10" in page
    assert page.count('<li value="') == 50
    last, page = queries(url(night_id) + "?page=10")
    assert last == one
    assert '<li value="500">' in page
