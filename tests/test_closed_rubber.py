"""A finished rubber whose next one has started is closed (SPEC "Every tap counts
once"): undo, entries and redeals are refused with why, on the pages and in the API;
the host may still correct a deal there while the winner stays the same."""

import pytest

from matches import values
from matches.models import Match

from .nights import play
from .pages import HTMX, browser, text


@pytest.fixture
def closed(match, ana, maria):
    """Ana & Rui won 4–2, Maria's 2 the deal before the last; the rematch has started."""
    play(match, ana, ("a", 2), ("b", 2), ("a", 2))
    following = match.rematch(ana)
    return Match.objects.for_sheet().get(pk=match.pk), following


def test_undo_is_refused_once_the_next_rubber_has_started(closed, ana):
    match, following = closed
    with pytest.raises(values.Conflict, match="next rubber has started") as refused:
        match.undo(ana)
    assert refused.value.data == {"next": following.pk}
    assert Match.objects.get(pk=match.pk).status == Match.WON


def test_undo_still_reopens_a_won_rubber_before_the_rematch(match, ana):
    play(match, ana, ("a", 2), ("a", 2))
    match.undo(ana)
    assert Match.objects.get(pk=match.pk).status == Match.IN_PLAY


def test_the_closed_sheet_offers_no_undo(closed, maria, ana):
    match, _following = closed
    for person in (maria, ana):
        page = text(browser(person).get(f"/matches/{match.pk}/"))
        assert 'id="undo"' not in page
        assert "Undo" not in page


def test_the_page_refuses_an_undo_on_a_closed_rubber_and_says_why(closed, ana):
    match, _following = closed
    response = browser(ana).post(f"/matches/{match.pk}/undo/", {}, **HTMX)
    assert response.status_code == 409
    assert "so this one is closed" in text(response)
    assert Match.objects.get(pk=match.pk).games_a == 4


def test_the_api_refuses_an_undo_on_a_closed_rubber_with_its_next(closed, api_as, ana):
    match, following = closed
    response = api_as(ana).post(f"/api/matches/{match.pk}/undo/", {}, format="json")
    assert response.status_code == 409
    assert "closed" in response.json()["detail"]
    assert response.json()["next"] == following.pk


def test_entries_and_redeals_are_refused_on_a_closed_rubber(closed, ana):
    match, _following = closed
    with pytest.raises(values.Conflict, match="closed: nothing more can be entered"):
        match.record(ana, deal=4, side="a", games=1)
    with pytest.raises(values.Conflict, match="closed: nothing more can be entered"):
        match.redeal(ana, deal=4)


def test_the_host_corrects_a_closed_rubber_while_its_winner_stays(closed, ana):
    match, _following = closed
    match.correct(ana, number=2, a=0, b=1)  # Maria's 2 was a 1
    match = Match.objects.get(pk=match.pk)
    assert (match.games_a, match.games_b, match.winner) == (4, 1, "a")


def test_a_correction_that_would_change_a_closed_rubbers_winner_is_refused(closed, ana):
    match, following = closed
    with pytest.raises(values.Conflict, match="may not change who won it") as refused:
        match.correct(ana, number=3, a=0, b=1)  # would leave the rubber in play at 2–3
    assert refused.value.data == {"next": following.pk}
    assert Match.objects.get(pk=match.pk).winner == "a"


def test_seats_change_in_the_rubber_in_play_not_in_a_closed_one(closed, ana, olga):
    match, _following = closed
    for change in (
        lambda: match.free_seat(ana, "b1"),
        lambda: match.make_seat_link(ana, "b1"),
    ):
        with pytest.raises(values.Conflict, match="take your seat in the rubber in play"):
            change()
