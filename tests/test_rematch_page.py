"""The host's choice of pairs for the next rubber: the same, swapped, or seat by seat."""

import pytest

from matches.models import Match
from tests.nights import play
from tests.pages import browser, text


@pytest.fixture
def won(match, ana):
    play(match, ana, ("a", 4))
    return match


def url(match):
    return f"/matches/{match.pk}/next/"


def test_the_form_names_the_three_pairings(won, ana):
    page = text(browser(ana).get(url(won)))
    assert "Ana &amp; Rui against Zé &amp; Maria" in page
    assert "Ana &amp; Zé against Rui &amp; Maria" in page
    assert "Ana &amp; Maria against Rui &amp; Zé" in page


def test_swapping_partners_seats_everyone_again(won, ana, rui, ze, maria):
    response = browser(ana).post(url(won), {"pairing": "swap_b1"})
    following = Match.objects.exclude(pk=won.pk).get()
    assert response.status_code == 302
    assert response["Location"] == f"/matches/{following.pk}/"
    assert following.night_id == won.night_id
    seated = {seat.position: seat.user for seat in following.seat_list()}
    assert seated == {"a1": ana, "a2": ze, "b1": rui, "b2": maria}


def test_seat_by_seat(won, ana, rui, ze, maria):
    browser(ana).post(
        url(won), {"pairing": "seats", "a1": "b1", "a2": "b2", "b1": "a1", "b2": "a2"}
    )
    following = Match.objects.exclude(pk=won.pk).get()
    assert following.side_names() == {"a": "Zé & Maria", "b": "Ana & Rui"}


def test_a_player_seated_twice_is_refused_and_nothing_starts(won, ana):
    response = browser(ana).post(
        url(won), {"pairing": "seats", "a1": "a1", "a2": "a1", "b1": "b1", "b2": "b2"}
    )
    assert response.status_code == 400
    assert "Give each of the four seats exactly one of this match&#x27;s players." in text(response)
    assert Match.objects.count() == 1


def test_a_rubber_in_play_is_refused(match, ana):
    response = browser(ana).post(url(match), {"pairing": "same"})
    assert response.status_code == 400
    assert "still in play" in text(response)
    assert Match.objects.count() == 1


def test_only_the_host_may_and_outsiders_get_404(won, rui, olga):
    response = browser(rui).post(url(won), {"pairing": "same"})
    assert response.status_code == 403
    assert "Only the host can start a rematch." in text(response)
    assert browser(olga).get(url(won)).status_code == 404
    assert Match.objects.count() == 1


def test_the_sheet_offers_other_pairs_to_the_host_once_the_rubber_is_over(won, ana, rui):
    assert f'href="{url(won)}"' in text(browser(ana).get(f"/matches/{won.pk}/"))
    assert f'href="{url(won)}"' not in text(browser(rui).get(f"/matches/{won.pk}/"))
