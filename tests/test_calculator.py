"""The calculator beside the sheet: it answers, and one more tap enters the answer."""

from matches.models import Match

from .conftest import SEAT_NAMES
from .pages import HTMX, browser, text, words


def calculate(user, match, htmx=True, **data):
    headers = HTMX if htmx else {}
    return browser(user).post(f"/matches/{match.pk}/calculator/", data, **headers)


def test_points_to_games(match, ze):
    response = calculate(ze, match, points="95")

    assert response.status_code == 200
    page = words(response)
    assert "<html" not in page
    assert "Nós: 95 points · Eles: 25 points" in page
    assert "Nós: 2 games" in page
    assert "Enter 2 for Nós in deal 1" in page
    assert '<input type="hidden" name="side" value="b">' in page
    assert '<input type="hidden" name="deal" value="1">' in page


def test_the_seed_worked_example_from_the_cards(match, rui):
    cards = {"aces": "3", "sevens": "2", "kings": "1", "jacks": "2", "queens": "1"}

    page = words(calculate(rui, match, **cards))

    assert "Nós: 65 points · Eles: 55 points" in page
    assert "Nós: 1 game" in page


def test_after_a_tie_the_calculator_adds_the_pending_extra_as_the_keys_do(match, rui, ze):
    match.record(rui, deal=1, side="a", games=0)
    match.record(ze, deal=1, side="b", games=0)

    page = text(calculate(rui, match, points="70"))

    assert "Nós: 1 game" in page
    assert "With the 1 extra game pending from the tie." in page
    assert "Enter 1+1=2 for Nós in deal 2" in page
    assert '<input type="hidden" name="games" value="2">' in page
    assert 'name="extra"' not in page


def test_a_tie_after_a_tie_enters_no_extra(match, rui, ze):
    match.record(rui, deal=1, side="a", games=0)
    match.record(ze, deal=1, side="b", games=0)

    page = text(calculate(rui, match, points="60"))

    assert "Enter 0 for Nós in deal 2" in page
    assert '<input type="hidden" name="games" value="0">' in page


def test_a_tie(match, rui):
    page = text(calculate(rui, match, points="60"))

    assert "60–60: a tie" in page
    assert "Enter 0 for Nós in deal 1" in page


def test_every_trick_is_a_bandeira(match, rui):
    page = text(calculate(rui, match, points="120", every_trick="on"))

    assert "Nós: 4 games" in page
    assert '<input type="hidden" name="sweep" value="on">' in page


def test_impossible_input_gets_the_rules_message(match, rui):
    for data, why in [
        ({"points": "119"}, "Card points can&#x27;t be 119:"),
        ({"points": "1"}, "Card points can&#x27;t be 1:"),
        ({"points": "121"}, "from 0 to 120"),
        ({"points": "abc"}, "whole number"),
        ({"points": "100", "every_trick": "on"}, "Every trick means all 120"),
        ({"aces": "5"}, "Aces must be"),
        ({"points": "60", "aces": "1"}, "not both"),
        ({}, "either the points or the cards"),
    ]:
        response = calculate(rui, match, **data)
        assert response.status_code == 400, data
        assert response["HX-Retarget"] == "#calc-result"
        assert why in text(response), data
        assert "Enter" not in text(response)


def test_without_javascript_the_page_comes_back_with_the_answer(match, rui):
    response = calculate(rui, match, htmx=False, points="70")

    assert response.status_code == 200
    page = text(response)
    assert '<section id="sheet"' in page
    assert 'value="70"' in page
    assert "Nós: 1 game" in page


def test_without_javascript_a_refusal_shows_on_the_page(match, rui):
    response = calculate(rui, match, htmx=False, points="119")

    assert response.status_code == 400
    assert "Card points can&#x27;t be 119:" in text(response)


def test_no_enter_button_once_the_side_has_entered(match, rui):
    match.record(rui, deal=1, side="a", games=0)

    page = text(calculate(rui, match, points="70"))

    assert "Nós: 1 game" in page
    assert "Enter" not in page


def test_a_host_without_a_seat_picks_whose_cards(ana):
    match = Match.objects.start(ana, SEAT_NAMES, host_seat=None)

    page = words(calculate(ana, match, points="70", side="b"))

    assert "Zé &amp; Maria: 70 points · Ana &amp; Rui: 50 points" in page
    assert '<input type="hidden" name="side" value="b">' in page


def test_negative_points_or_cards_are_refused_with_their_range(match, rui):
    # Card points are no count on the sheet: "the sheet only goes upward" is not why.
    for data, why in [
        ({"points": "-5"}, "Points must be a whole number from 0 to 120."),
        ({"aces": "-1"}, "Aces must be a whole number from 0 to 4."),
    ]:
        page = text(calculate(rui, match, **data))
        assert why in page
        assert "only goes upward" not in page
