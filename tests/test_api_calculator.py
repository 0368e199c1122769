"""POST /api/calculator/: no sign-in, the calculator's rules and messages."""

import pytest


def calculate(api_as, body):
    return api_as().post("/api/calculator/", body, format="json")


@pytest.mark.parametrize(
    ("points", "games", "tie"),
    [(0, 0, False), (60, 0, True), (61, 1, False), (90, 1, False), (91, 2, False), (120, 2, False)],
)
def test_points_to_games(api_as, db, points, games, tie):
    response = calculate(api_as, {"points": points})
    assert response.status_code == 200
    assert response.json() == {
        "points": points,
        "other_points": 120 - points,
        "games": games,
        "tie": tie,
    }


def test_cards_are_added_up(api_as, db):
    cards = {"aces": 3, "sevens": 2, "kings": 1, "jacks": 2, "queens": 1}
    response = calculate(api_as, {"cards": cards})
    assert response.status_code == 200
    assert response.json() == {"points": 65, "other_points": 55, "games": 1, "tie": False}


def test_every_trick_is_a_bandeira(api_as, db):
    response = calculate(api_as, {"points": 120, "every_trick": True})
    assert response.json()["games"] == 4


def test_works_with_a_signed_in_session_without_csrf(client, ana):
    client.force_login(ana)
    response = client.post("/api/calculator/", {"points": 70}, content_type="application/json")
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"points": 1}, "Card points can't be 1: no set of cards adds up to 1 or 119."),
        ({"points": 119}, "Card points can't be 119: no set of cards adds up to 1 or 119."),
        ({"points": 121}, "Points must be a whole number from 0 to 120."),
        ({"points": -5}, "Points must be a whole number from 0 to 120."),
        ({"points": 10**40}, "Points must be a whole number from 0 to 120."),
        ({"points": 100, "every_trick": True}, "Every trick means all 120 points, not 100."),
        ({"cards": {"aces": 5}}, "Aces must be a whole number from 0 to 4."),
        ({}, "Give either the points or the cards, not both or neither."),
        (
            {"points": 60, "cards": {"aces": 1}},
            "Give either the points or the cards, not both or neither.",
        ),
        (
            {"cards": {"jokers": 2}},
            "cards: Only aces, sevens, kings, jacks and queens count, not jokers.",
        ),
        ({"points": "lots"}, "Points must be a whole number."),
        ({"points": 60.5}, "Points must be a whole number."),
        ({"cards": [1, 2]}, "cards: Invalid data. Expected a dictionary, but got list."),
    ],
)
def test_impossible_input_is_refused_with_the_rule(api_as, db, body, message):
    response = calculate(api_as, body)
    assert response.status_code == 400
    assert response.json()["detail"] == message


def test_each_body_has_fields_of_its_own():
    from matches.api.bodies import CalculatorSerializer

    first, second = CalculatorSerializer(), CalculatorSerializer()
    assert first.fields["points"] is not second.fields["points"]
    assert first.fields["points"].parent is first
    assert first.fields["cards"].fields["aces"] is not second.fields["cards"].fields["aces"]
