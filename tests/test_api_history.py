"""GET /api/matches/ as the history: the caller's rubbers newest first, with the
filters of the history page (night, partner, opponent, result, dates)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.nights import four_rubbers, many_rubbers


@pytest.fixture
def rubbers(match, ana, ze):
    return four_rubbers(match, ana, ze)


def ids(response):
    assert response.status_code == 200, response.json()
    return [match["id"] for match in response.json()["results"]]


def test_filters_by_partner_opponent_and_result(api_as, rubbers, rui, ana, maria, ze):
    first, second, third, fourth = (rubber.pk for rubber in rubbers)
    client = api_as(rui)
    assert ids(client.get("/api/matches/")) == [fourth, third, second, first]
    assert ids(client.get("/api/matches/", {"partner": ana.pk})) == [fourth, first]
    assert ids(client.get("/api/matches/", {"partner": maria.pk, "result": "won"})) == [second]
    assert ids(client.get("/api/matches/", {"opponent": ze.pk, "result": "ended"})) == [third]
    assert ids(api_as(ze).get("/api/matches/", {"result": "lost"})) == [fourth, second, first]


def test_filters_by_night_and_dates(api_as, rubbers, ana):
    client = api_as(ana)
    today = rubbers[0].created.date().isoformat()
    night = rubbers[0].night_id
    found = client.get("/api/matches/", {"night": night, "since": today, "until": today})
    assert len(ids(found)) == 4
    assert ids(client.get("/api/matches/", {"until": "2000-01-01"})) == []


@pytest.mark.parametrize(
    "query",
    [{"result": "drawn"}, {"partner": "rui"}, {"since": "yesterday"}, {"opponent": "0"}],
)
def test_a_bad_filter_is_400_with_a_message(api_as, ana, query):
    response = api_as(ana).get("/api/matches/", query)
    assert response.status_code == 400
    assert response.json()["detail"]


def test_the_list_keeps_its_query_count_as_rubbers_grow(api_as, match, ana, rui, ze, maria):
    client = api_as(rui)

    def queries():
        with CaptureQueriesContext(connection) as captured:
            response = client.get("/api/matches/", {"partner": ana.pk})
        assert response.status_code == 200
        return len(captured.captured_queries), response.json()

    one, body = queries()
    many_rubbers(match.night, ana, [ana, rui, ze, maria], 60)
    many, body = queries()
    assert many == one
    assert body["count"] == 61
    assert len(body["results"]) == 20


def test_a_new_night_takes_a_name_and_a_place(api_as, ana):
    seats = {"a1": "Ana", "a2": "Rui", "b1": "Zé", "b2": "Maria"}
    body = {"seats": seats, "night_name": "Sexta", "place": "Café Central"}
    response = api_as(ana).post("/api/matches/", body, format="json")
    assert response.status_code == 201
    night = api_as(ana).get(f"/api/nights/{response.json()['night']}/").json()
    assert (night["name"], night["place"]) == ("Sexta", "Café Central")
    too_long = {"seats": seats, "place": "x" * 81}
    response = api_as(ana).post("/api/matches/", too_long, format="json")
    assert response.status_code == 400
    assert response.json()["detail"] == "The place is too long: 80 characters at most."
