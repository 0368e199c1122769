"""GET /api/nights/{id}/: the night's rubbers in order and its tally."""

import pytest

from matches import rules
from matches.models import Match
from tests.conftest import SEAT_NAMES


def play(match, by, *cells):
    for side, games in cells:
        match.record(by, deal=rules.current_deal(match.sheet()), side=side, games=games)


def test_night_lists_its_rubbers_in_order_with_the_tally(api_as, match, ana, ze):
    play(match, ana, ("a", 2), ("a", 2))
    second = match.rematch(ana, {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"})
    play(second, ana, ("b", 1))
    second.end(ze)
    response = api_as(ze).get(f"/api/nights/{match.night_id}/")
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == match.night_id
    assert body["name"] == match.night.name
    assert body["place"] == ""
    assert [m["id"] for m in body["matches"]] == [match.pk, second.pk]
    assert [m["status"] for m in body["matches"]] == ["won", "ended"]
    assert body["matches"][0]["marks"] == ["shutout"]
    assert body["matches"][1]["ended_by"] == "Zé"
    assert body["tally"]["pairs"][0] == {
        "name": "Ana & Rui",
        "players": ["Ana", "Rui"],
        "rubbers": 1,
        "won": 1,
        "games": 4,
        "bandeiras": 0,
        "shutouts": 1,
        "chapeus": 0,
        "ended_early": 0,
    }
    assert {pair["name"] for pair in body["tally"]["pairs"]} == {
        "Ana & Rui", "Zé & Maria", "Ana & Zé", "Rui & Maria",
    }  # fmt: skip
    rui = next(p for p in body["tally"]["players"] if p["name"] == "Rui")
    assert (rui["rubbers"], rui["won"], rui["games"], rui["ended_early"]) == (2, 1, 5, 1)
    assert rui["user"] == match.seats.get(position="a2").user_id


def test_outsider_gets_404_and_anonymous_401(api_as, match, olga):
    response = api_as(olga).get(f"/api/nights/{match.night_id}/")
    assert response.status_code == 404
    assert response.json() == {
        "detail": "There is nothing here, or it is not yours to see. Is it your match? Log in."
    }
    assert api_as().get(f"/api/nights/{match.night_id}/").status_code == 401


@pytest.mark.parametrize("night_id", ["999", str(10**30), "tonight"])
def test_no_such_night_is_404(api_as, ana, night_id):
    response = api_as(ana).get(f"/api/nights/{night_id}/")
    assert response.status_code == 404
    assert response.json()["detail"]


def test_night_query_count_stays_flat_as_rubbers_are_added(
    api_as, match, ana, django_assert_num_queries
):
    def count_queries():
        with django_assert_num_queries(4) as captured:  # night, matches with hosts, seats, notes
            response = api_as(ana).get(f"/api/nights/{match.night_id}/")
        assert response.status_code == 200
        return len(captured.captured_queries), response.json()

    one, body = count_queries()
    assert len(body["matches"]) == 1
    for _ in range(20):
        Match.objects.start(ana, SEAT_NAMES, night=match.night)
    many, body = count_queries()
    assert len(body["matches"]) == 21
    assert many == one
