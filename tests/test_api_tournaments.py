"""The tournament endpoints of API.md ("Tournaments"), from opening one to its champion."""

import pytest

from matches.models import Match
from tests.tournaments import PAIRS

BODY = {
    "name": "Torneio de Natal",
    "pairs": PAIRS[:4],
    "format": "round_robin",
    "tables": 2,
    "mocas_to_win": 1,
}


@pytest.fixture
def opened(api_as, ana):
    response = api_as(ana).post("/api/tournaments/", BODY, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def bandeira(api, match_id, side="a"):
    sheet = api.get(f"/api/matches/{match_id}/").json()
    body = {"deal": sheet["current_deal"], "side": side, "games": 4, "sweep": True}
    response = api.post(f"/api/matches/{match_id}/entries/", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_opening_a_tournament_answers_it_registering(opened):
    assert opened["status"] == "registering"
    assert [pair["name"] for pair in opened["pairs"]] == [
        "Ana & Rui",
        "Zé & Maria",
        "Inês & Tiago",
        "Beatriz & Duarte",
    ]
    assert opened["pairs"][0]["players"] == ["Ana", "Rui"]
    assert opened["rounds"] == [] and opened["champion"] is None
    assert opened["tables"] == 2 and opened["mocas_to_win"] == 1
    assert set(opened["table_links"]) == {"1", "2"}
    assert opened["watch_token"] and opened["events"].endswith(
        f"/api/tournaments/{opened['id']}/events/"
    )
    assert [s["points"] for s in opened["standings"]] == [0, 0, 0, 0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"pairs": [["Ana", "Rui"]]}, "from 2 to 64 pairs"),
        ({"pairs": [["Ana", "Rui"], ["Rui", "Zé"]]}, "Rui is in two pairs"),
        ({"pairs": [["Ana", "\u200b"], ["Zé", "Maria"]]}, "Each seat's name"),
        ({"format": "league"}, "format"),
        ({"tables": 0}, "tables"),
        ({"mocas_to_win": 10}, "mocas_to_win"),
        ({"format": "round_robin_knockout", "knockout_size": None}, "top 2, 4 or 8"),
        ({"surprise": 1}, "There is no field surprise here."),
    ],
)
def test_bad_bodies_are_refused_with_a_message_and_make_nothing(api_as, ana, change, message):
    response = api_as(ana).post("/api/tournaments/", {**BODY, **change}, format="json")
    assert response.status_code == 400
    assert message in response.json()["detail"]
    assert api_as(ana).get("/api/tournaments/1/").status_code == 404


def test_opening_needs_a_sign_in(api_as):
    assert api_as().post("/api/tournaments/", BODY, format="json").status_code == 401


def test_only_the_organiser_reads_it_by_id(api_as, opened, olga):
    assert api_as(olga).get(f"/api/tournaments/{opened['id']}/").status_code == 404
    assert api_as().get(f"/api/tournaments/{opened['id']}/").status_code == 401
    assert api_as(olga).post(f"/api/tournaments/{opened['id']}/rounds/").status_code == 404


def test_a_round_puts_the_first_rubbers_on_the_tables(api_as, ana, opened):
    api = api_as(ana)
    response = api.post(f"/api/tournaments/{opened['id']}/rounds/")
    assert response.status_code == 201
    round = response.json()["rounds"][0]
    assert round["number"] == 1 and round["phase"] == "round_robin" and round["status"] == "in_play"
    assert [s["table"] for s in round["series"]] == [1, 2]
    for series in round["series"]:
        assert series["matches"] == [series["current_match"]]
        sheet = api.get(f"/api/matches/{series['current_match']}/").json()
        pairs = {pair["id"]: pair["players"] for pair in response.json()["pairs"]}
        assert [seat["name"] for seat in sheet["sides"]["a"]["seats"]] == pairs[series["a"]]
    assert api.post(f"/api/tournaments/{opened['id']}/rounds/").status_code == 409


def test_a_tournament_plays_to_its_champion_through_the_sheets(api_as, ana, opened):
    api = api_as(ana)
    path = f"/api/tournaments/{opened['id']}/"
    for _ in range(3):
        rounds = api.post(path + "rounds/").json()["rounds"]
        for series in rounds[-1]["series"]:
            winner = "a" if series["a"] < series["b"] else "b"
            sheet = bandeira(api, series["current_match"], winner)
            assert sheet["status"] == "won"
    body = api.get(path).json()
    assert body["status"] == "finished"
    assert body["champion"] == body["pairs"][0]["id"]
    assert [(s["rank"], s["points"]) for s in body["standings"]] == [(1, 9), (2, 6), (3, 3), (4, 0)]
    assert body["standings"][0]["mocas_won"] == 3 and body["standings"][0]["games_won"] == 12
    refused = api.post(path + "rounds/")
    assert refused.status_code == 409 and "No round is left" in refused.json()["detail"]


def test_the_series_next_rubber_is_the_match_next(api_as, ana):
    api = api_as(ana)
    body = api.post("/api/tournaments/", {**BODY, "mocas_to_win": 2}, format="json").json()
    series = api.post(f"/api/tournaments/{body['id']}/rounds/").json()["rounds"][0]["series"][0]
    sheet = bandeira(api, series["current_match"])
    assert sheet["next"] is not None
    after = api.get(f"/api/tournaments/{body['id']}/").json()["rounds"][0]["series"][0]
    assert after["mocas"] == {"a": 1, "b": 0}
    assert after["current_match"] == sheet["next"]
    assert after["games"] == {"a": 0, "b": 0}


def test_a_walkover_and_its_refusals(api_as, ana):
    api = api_as(ana)
    body = api.post("/api/tournaments/", {**BODY, "mocas_to_win": 3}, format="json").json()
    first, second = api.post(f"/api/tournaments/{body['id']}/rounds/").json()["rounds"][0]["series"]
    path = f"/api/tournaments/{body['id']}/series/{first['id']}/walkover/"
    assert api.post(path, {"winner": 999999}, format="json").status_code == 400
    answer = api.post(path, {"winner": first["b"]}, format="json")
    assert answer.status_code == 200
    done = answer.json()["rounds"][0]["series"][0]
    assert done["walkover"] and done["winner"] == first["b"] and done["mocas"] == {"a": 0, "b": 3}
    assert Match.objects.get(pk=first["current_match"]).status == "ended"
    bandeira(api, second["current_match"])
    path = f"/api/tournaments/{body['id']}/series/{second['id']}/walkover/"
    refused = api.post(path, {"winner": second["b"]}, format="json")
    assert refused.status_code == 409 and "has been won" in refused.json()["detail"]
    assert (
        api.post(
            f"/api/tournaments/{body['id']}/series/999999/walkover/", {"winner": 1}, format="json"
        ).status_code
        == 404
    )


def test_a_negra_between_pairs_that_do_not_share_a_rank_is_refused(api_as, ana, opened):
    api = api_as(ana)
    pairs = [pair["id"] for pair in opened["pairs"]]
    response = api.post(
        f"/api/tournaments/{opened['id']}/negra/", {"pairs": pairs[:2]}, format="json"
    )
    assert response.status_code == 409
    assert "round robin" in response.json()["detail"]


def test_the_pairs_change_before_the_first_round_only(api_as, ana, opened):
    api = api_as(ana)
    path = f"/api/tournaments/{opened['id']}/pairs/"
    answer = api.put(path, {"pairs": [["Ana", "Zé"], ["Rui", "Maria"]]}, format="json")
    assert answer.status_code == 200
    assert [pair["name"] for pair in answer.json()["pairs"]] == ["Ana & Zé", "Rui & Maria"]
    api.post(f"/api/tournaments/{opened['id']}/rounds/")
    assert (
        api.put(path, {"pairs": [["Ana", "Zé"], ["Rui", "Maria"]]}, format="json").status_code
        == 409
    )


def test_the_watch_link_reads_it_all_without_tokens(api_as, ana, opened):
    answer = api_as().get(f"/api/tournaments/watch/{opened['watch_token']}/")
    assert answer.status_code == 200
    body = answer.json()
    assert body["watch_token"] is None and body["table_links"] is None
    assert body["events"].endswith(f"/api/tournaments/watch/{opened['watch_token']}/events/")
    again = api_as().get(
        f"/api/tournaments/watch/{opened['watch_token']}/", HTTP_IF_NONE_MATCH=answer["ETag"]
    )
    assert again.status_code == 304
    assert api_as().get("/api/tournaments/watch/not-a-token/").status_code == 404


def test_a_change_at_a_table_moves_the_tournaments_etag(api_as, ana, opened):
    api = api_as(ana)
    api.post(f"/api/tournaments/{opened['id']}/rounds/")
    path = f"/api/tournaments/{opened['id']}/"
    first = api.get(path)
    match = first.json()["rounds"][0]["series"][0]["current_match"]
    sheet = api.get(f"/api/matches/{match}/").json()
    api.post(
        f"/api/matches/{match}/entries/",
        {"deal": sheet["current_deal"], "side": "a", "games": 1},
        format="json",
    )
    assert api.get(path, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200


def test_a_table_link_names_the_rubber_in_play(api_as, ana, opened):
    api = api_as(ana)
    round = api.post(f"/api/tournaments/{opened['id']}/rounds/").json()
    token = round["table_links"]["1"].rstrip("/").rsplit("/", 1)[1]
    answer = api_as().get(f"/api/tables/{token}/").json()
    assert answer == {
        "tournament": opened["id"],
        "table": 1,
        "match": round["rounds"][0]["series"][0]["current_match"],
    }
    assert api_as().get("/api/tables/nope/").status_code == 404


def test_the_organiser_ends_it(api_as, ana, opened):
    api = api_as(ana)
    answer = api.post(f"/api/tournaments/{opened['id']}/end/")
    assert answer.status_code == 200 and answer.json()["status"] == "finished"
    assert api.post(f"/api/tournaments/{opened['id']}/rounds/").status_code == 409
