"""The club endpoints (API.md, "Clubs"): the club, its roster and organisers, linking
an account, club rubbers and their forecast, the ratings, a player's record, seasons;
who may read and change what, and bad input refused with nothing changed."""

import pytest

from clubs.models import Club, ClubRubber, Player
from matches.models import Match
from tests.clubs import ROSTER, club_of, club_rubber, win


@pytest.fixture
def club(ana):
    return club_of(ana)


def ids(players, *names):
    return [players[name].pk for name in names]


def seats(players, a1, a2, b1, b2):
    return dict(zip(("a1", "a2", "b1", "b2"), ids(players, a1, a2, b1, b2), strict=True))


# The club -------------------------------------------------------------------------------


def test_anyone_signed_in_opens_a_club_and_organises_it(api_as, ana):
    response = api_as(ana).post("/api/clubs/", {"name": "Café Central"}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "Café Central"
    assert body["organisers"] == [{"id": ana.pk, "name": "Ana"}]
    assert body["players"] == [] and body["seasons"] == []
    assert body["watch_token"] == Club.objects.get().watch_token
    assert body["events"].endswith(f"/api/clubs/{body['id']}/events/")


@pytest.mark.parametrize("name", ["", "   ", "x" * 81, 7, None])
def test_a_club_needs_a_name(api_as, ana, name):
    response = api_as(ana).post("/api/clubs/", {"name": name}, format="json")
    assert response.status_code == 400
    assert response.json()["detail"]
    assert not Club.objects.exists()


def test_signed_out_opens_no_club(api_as, db):
    assert api_as().post("/api/clubs/", {"name": "Café"}, format="json").status_code == 401


def test_the_club_is_read_by_organisers_and_its_players_accounts(api_as, club, ana, rui, olga):
    club, players = club
    players["Rui"].user = rui
    players["Rui"].save()
    organiser = api_as(ana).get(f"/api/clubs/{club.pk}/").json()
    assert [player["name"] for player in organiser["players"]] == sorted(ROSTER)
    assert organiser["watch_token"] == club.watch_token
    player = api_as(rui).get(f"/api/clubs/{club.pk}/")
    assert player.status_code == 200
    assert "watch_token" not in player.json()
    assert {"id": players["Rui"].pk, "name": "Rui", "user": rui.pk} in player.json()["players"]
    assert api_as(olga).get(f"/api/clubs/{club.pk}/").status_code == 404
    assert api_as().get(f"/api/clubs/{club.pk}/").status_code == 401
    assert api_as(ana).get("/api/clubs/99999/").status_code == 404


def test_the_watch_link_reads_the_club_without_sign_in(api_as, club):
    club, _players = club
    response = api_as().get(f"/api/clubs/watch/{club.watch_token}/")
    assert response.status_code == 200
    assert response.json()["name"] == "Café Central"
    assert "watch_token" not in response.json()
    assert "/api/clubs/watch/" in response.json()["events"]
    assert api_as().get("/api/clubs/watch/" + "x" * 32 + "/").status_code == 404


# The roster -----------------------------------------------------------------------------


def test_organisers_add_players(api_as, club, ana):
    club, _players = club
    response = api_as(ana).post(f"/api/clubs/{club.pk}/players/", {"name": " Beto "}, format="json")
    assert response.status_code == 201
    assert response.json() == {
        "id": Player.objects.get(name="Beto").pk,
        "name": "Beto",
        "user": None,
    }


@pytest.mark.parametrize("name", ["ana", "ANA", "Zé", " zé "])
def test_a_name_on_the_roster_already_is_a_conflict(api_as, club, ana, name):
    club, _players = club
    response = api_as(ana).post(f"/api/clubs/{club.pk}/players/", {"name": name}, format="json")
    assert response.status_code == 409
    assert "on the roster already" in response.json()["detail"]
    assert club.players.count() == len(ROSTER)


@pytest.mark.parametrize("body", [{"name": ""}, {"name": "x" * 41}, {}, {"name": "Beto", "x": 1}])
def test_a_bad_name_is_refused(api_as, club, ana, body):
    club, _players = club
    response = api_as(ana).post(f"/api/clubs/{club.pk}/players/", body, format="json")
    assert response.status_code == 400
    assert club.players.count() == len(ROSTER)


def test_players_and_strangers_may_not_change_the_roster(api_as, club, rui, olga):
    club, players = club
    players["Rui"].user = rui
    players["Rui"].save()
    response = api_as(rui).post(f"/api/clubs/{club.pk}/players/", {"name": "Beto"}, format="json")
    assert response.status_code == 403
    assert response.json()["detail"] == "Only the club's organisers can change the roster."
    response = api_as(olga).post(f"/api/clubs/{club.pk}/players/", {"name": "Beto"}, format="json")
    assert response.status_code == 404
    assert club.players.count() == len(ROSTER)


def test_organisers_rename_a_player(api_as, club, ana):
    club, players = club
    url = f"/api/clubs/{club.pk}/players/{players['Tó'].pk}/"
    response = api_as(ana).patch(url, {"name": "António"}, format="json")
    assert response.status_code == 200
    assert response.json()["name"] == "António"
    assert api_as(ana).patch(url, {"name": "ana"}, format="json").status_code == 409
    assert api_as(ana).patch(url, {"name": "antónio"}, format="json").status_code == 200  # itself
    other = f"/api/clubs/{club.pk}/players/999999/"
    assert api_as(ana).patch(other, {"name": "Beto"}, format="json").status_code == 404


def test_merging_two_entries_moves_their_rubbers_and_rates_again(api_as, club, ana):
    club, players = club
    extra = club.add_player(ana, "Toninho")
    win(club_rubber(ana, club, players["Ana"], extra, players["Zé"], players["Maria"]), ana)
    win(club_rubber(ana, club, players["Ana"], players["Tó"], players["Zé"], players["Maria"]), ana)
    url = f"/api/clubs/{club.pk}/players/{extra.pk}/merge/"
    response = api_as(ana).post(url, {"into": players["Tó"].pk}, format="json")
    assert response.status_code == 200
    assert response.json()["id"] == players["Tó"].pk
    assert not Player.objects.filter(pk=extra.pk).exists()
    to = Player.objects.get(pk=players["Tó"].pk)
    assert (to.rubbers, to.won) == (2, 2)
    assert to.seats.count() == 2


def test_merging_a_player_with_itself_or_a_stranger_is_refused(api_as, club, ana):
    club, players = club
    url = f"/api/clubs/{club.pk}/players/{players['Tó'].pk}/merge/"
    assert api_as(ana).post(url, {"into": players["Tó"].pk}, format="json").status_code == 400
    assert api_as(ana).post(url, {"into": 999999}, format="json").status_code == 404
    assert club.players.count() == len(ROSTER)


def test_a_player_links_their_account_by_the_link_handed_out(api_as, club, ana, rui, olga):
    club, players = club
    response = api_as(ana).post(f"/api/clubs/{club.pk}/players/{players['Rui'].pk}/link/")
    assert response.status_code == 200
    body = response.json()
    assert body["player"] == players["Rui"].pk
    assert body["link"].endswith(f"/clubs/link/{body['token']}/")
    asked = api_as(rui).get(f"/api/clubs/players/link/{body['token']}/").json()
    assert asked == {"player": players["Rui"].pk, "name": "Rui", "club": "Café Central"}
    assert api_as(rui).post(f"/api/clubs/players/link/{body['token']}/").json()["user"] == rui.pk
    # Spent: nobody else takes Rui's place with it.
    assert api_as(olga).post(f"/api/clubs/players/link/{body['token']}/").status_code == 404
    assert Player.objects.get(pk=players["Rui"].pk).user == rui
    # Rui reads his club now; another link for another player of his is refused.
    assert api_as(rui).get(f"/api/clubs/{club.pk}/").status_code == 200
    token = (
        api_as(ana).post(f"/api/clubs/{club.pk}/players/{players['Tó'].pk}/link/").json()["token"]
    )
    response = api_as(rui).post(f"/api/clubs/players/link/{token}/")
    assert response.status_code == 409
    assert Player.objects.get(pk=players["Tó"].pk).user is None


def test_only_organisers_hand_out_links(api_as, club, rui):
    club, players = club
    players["Rui"].user = rui
    players["Rui"].save()
    response = api_as(rui).post(f"/api/clubs/{club.pk}/players/{players['Rui'].pk}/link/")
    assert response.status_code == 403
    assert Player.objects.get(pk=players["Rui"].pk).link_token == ""


def test_organisers_add_an_organiser_through_a_linked_player(api_as, club, ana, rui):
    club, players = club
    url = f"/api/clubs/{club.pk}/organisers/"
    response = api_as(ana).post(url, {"player": players["Rui"].pk}, format="json")
    assert response.status_code == 409  # no account linked yet
    players["Rui"].user = rui
    players["Rui"].save()
    response = api_as(ana).post(url, {"player": players["Rui"].pk}, format="json")
    assert response.status_code == 200
    assert {"id": rui.pk, "name": "Rui"} in response.json()["organisers"]
    assert club.is_organiser(rui)
    # Rui may now take Ana off; the last organiser stays.
    assert api_as(rui).delete(f"/api/clubs/{club.pk}/organisers/{ana.pk}/").status_code == 200
    response = api_as(rui).delete(f"/api/clubs/{club.pk}/organisers/{rui.pk}/")
    assert response.status_code == 409
    assert list(club.organisers.all()) == [rui]


# Club rubbers ---------------------------------------------------------------------------


def start(api_as, user, club, players, *names, **body):
    return api_as(user).post(
        "/api/matches/",
        {"club": club.pk, "players": seats(players, *names), **body},
        format="json",
    )


def test_a_club_rubber_takes_its_players_names_and_shows_its_forecast(api_as, club, ana):
    club, players = club
    response = start(api_as, ana, club, players, "Ana", "Rui", "Zé", "Maria", host_seat="a1")
    assert response.status_code == 201
    body = response.json()
    assert body["club"] == club.pk
    assert body["players"] == seats(players, "Ana", "Rui", "Zé", "Maria")
    assert [seat["name"] for seat in body["sides"]["a"]["seats"]] == ["Ana", "Rui"]
    assert body["forecast"]["a"] == pytest.approx(0.5)
    assert body["forecast"]["a"] + body["forecast"]["b"] == pytest.approx(1)
    # An ordinary rubber says none of it.
    plain = api_as(ana).post(
        "/api/matches/", {"seats": {"a1": "A", "a2": "B", "b1": "C", "b2": "D"}}, format="json"
    )
    assert plain.json()["club"] is None and plain.json()["forecast"] is None


def test_the_forecast_favours_the_stronger_side_and_is_kept(api_as, club, ana):
    club, players = club
    for _ in range(3):
        win(club_rubber(ana, club, *(players[n] for n in ("Ana", "Rui", "Zé", "Maria"))), ana)
    body = start(api_as, ana, club, players, "Ana", "Rui", "Zé", "Maria").json()
    assert body["forecast"]["a"] > 0.5
    kept = body["forecast"]
    win(club_rubber(ana, club, *(players[n] for n in ("Zé", "Maria", "Ana", "Rui"))), ana)
    again = api_as(ana).get(f"/api/matches/{body['id']}/").json()
    assert again["forecast"] == kept  # the chance it had before its first deal


def test_a_players_account_may_start_a_club_rubber(api_as, club, rui, olga):
    club, players = club
    players["Rui"].user = rui
    players["Rui"].save()
    assert start(api_as, rui, club, players, "Ana", "Rui", "Zé", "Maria").status_code == 201
    response = start(api_as, olga, club, players, "Ana", "Rui", "Zé", "Maria")
    assert response.status_code == 400
    assert response.json()["detail"] == "There is no such club of yours."


@pytest.mark.parametrize(
    "players_given",
    [
        {"a1": "Ana", "a2": "Ana", "b1": "Zé", "b2": "Maria"},  # the same player twice
        {"a1": "Ana", "a2": "Rui", "b1": "Zé"},  # three
        {"a1": "Ana", "a2": "Rui", "b1": "Zé", "b2": "Maria", "c1": "Olga"},  # five
        {"a1": "Ana", "a2": "Rui", "b1": "Zé", "b2": "Outsider"},  # another club's
    ],
)
def test_four_different_players_of_the_club_or_nothing(api_as, club, ana, olga, players_given):
    club, players = club
    _other, outsiders = club_of(olga, ["Outsider"], name="Tasca")
    everyone = {**players, **outsiders}
    body = {position: everyone[name].pk for position, name in players_given.items()}
    before = Match.objects.count()
    response = api_as(ana).post("/api/matches/", {"club": club.pk, "players": body}, format="json")
    assert response.status_code == 400
    assert response.json()["detail"]
    assert Match.objects.count() == before
    assert not ClubRubber.objects.exists()


def test_a_club_without_players_or_players_without_a_club_is_refused(api_as, club, ana):
    club, players = club
    response = api_as(ana).post("/api/matches/", {"club": club.pk}, format="json")
    assert response.status_code == 400
    response = api_as(ana).post(
        "/api/matches/", {"players": seats(players, "Ana", "Rui", "Zé", "Maria")}, format="json"
    )
    assert response.status_code == 400
    assert not Match.objects.exists()


def test_a_rematch_keeps_the_club_and_moves_the_players(api_as, club, ana):
    club, players = club
    match = win(club_rubber(ana, club, *(players[n] for n in ("Ana", "Rui", "Zé", "Maria"))), ana)
    swapped = {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"}
    response = api_as(ana).post(
        f"/api/matches/{match.pk}/rematch/", {"seats": swapped}, format="json"
    )
    assert response.status_code == 201
    body = response.json()
    assert body["club"] == club.pk
    assert body["players"] == seats(players, "Ana", "Zé", "Rui", "Maria")


# Ratings, forecasts, a player's record --------------------------------------------------


def test_the_leaderboard_ranks_every_player_and_marks_the_provisional(api_as, club, ana, olga):
    club, players = club
    win(club_rubber(ana, club, *(players[n] for n in ("Ana", "Rui", "Zé", "Maria"))), ana)
    response = api_as(ana).get(f"/api/clubs/{club.pk}/ratings/")
    assert response.status_code == 200
    lines = response.json()["players"]
    assert len(lines) == len(ROSTER)
    assert {line["name"] for line in lines[:2]} == {"Ana", "Rui"}
    assert {line["name"] for line in lines[2:4]} == {"Zé", "Maria"}
    assert all(line["rubbers"] == 0 for line in lines[4:])
    first = lines[0]
    assert set(first) == {
        "rank",
        "player",
        "name",
        "rating",
        "mu",
        "sigma",
        "rubbers",
        "won",
        "provisional",
    }
    assert (first["rank"], first["rubbers"], first["won"], first["provisional"]) == (1, 1, 1, True)
    assert lines[1]["rank"] == 1  # level with Ana
    assert api_as(olga).get(f"/api/clubs/{club.pk}/ratings/").status_code == 404


def test_a_forecast_for_any_four_players(api_as, club, ana):
    club, players = club
    for _ in range(2):
        win(club_rubber(ana, club, *(players[n] for n in ("Ana", "Rui", "Zé", "Maria"))), ana)
    a, b = (
        ",".join(map(str, ids(players, "Ana", "Rui"))),
        ",".join(map(str, ids(players, "Zé", "Maria"))),
    )
    body = api_as(ana).get(f"/api/clubs/{club.pk}/forecast/?a={a}&b={b}").json()
    assert body["a"] > 0.5 and body["a"] + body["b"] == pytest.approx(1)
    flipped = api_as(ana).get(f"/api/clubs/{club.pk}/forecast/?a={b}&b={a}").json()
    assert flipped["a"] == pytest.approx(body["b"])


@pytest.mark.parametrize("query", ["", "a=1,2", "a=1,2&b=3", "a=x,y&b=z,w", "a=1,1&b=2,3"])
def test_a_forecast_needs_four_different_players_of_the_club(api_as, club, ana, query):
    club, _players = club
    response = api_as(ana).get(f"/api/clubs/{club.pk}/forecast/?{query}")
    assert response.status_code == 400
    assert response.json()["detail"] == "Name four different players of this club, one a seat."


def test_a_players_record(api_as, club, ana):
    club, players = club
    ana_, rui, ze, maria = (players[n] for n in ("Ana", "Rui", "Zé", "Maria"))
    first = win(club_rubber(ana, club, ana_, rui, ze, maria), ana)
    win(club_rubber(ana, club, ana_, ze, rui, maria), ana, side="b")
    response = api_as(ana).get(f"/api/clubs/{club.pk}/players/{ana_.pk}/")
    assert response.status_code == 200
    body = response.json()
    assert (body["name"], body["rubbers"], body["won"]) == ("Ana", 2, 1)
    assert [point["match"] for point in body["ratings"]] == [first.pk, first.pk + 1]
    assert body["ratings"][-1]["rating"] == body["rating"]
    partners = {entry["name"]: (entry["rubbers"], entry["won"]) for entry in body["partners"]}
    assert partners == {"Rui": (1, 1), "Zé": (1, 0)}
    opponents = {entry["name"]: (entry["rubbers"], entry["lost"]) for entry in body["opponents"]}
    assert opponents == {"Zé": (1, 0), "Maria": (2, 1), "Rui": (1, 1)}
    assert body["tournaments"] == []
    assert api_as(ana).get(f"/api/clubs/{club.pk}/players/999999/").status_code == 404


# Seasons --------------------------------------------------------------------------------


def test_organisers_create_seasons_with_the_default_points(api_as, club, ana, rui):
    club, players = club
    body = {"name": "Época 2026/27", "start": "2026-09-01", "end": "2027-06-30"}
    response = api_as(ana).post(f"/api/clubs/{club.pk}/seasons/", body, format="json")
    assert response.status_code == 201
    season = response.json()
    assert season["points"] == [10, 8, 6, 5, 4, 3, 2, 1]
    assert season["taking_part"] == 1
    assert season["tournaments"] == [] and season["standings"] == []
    read = api_as(ana).get(f"/api/clubs/{club.pk}/seasons/{season['id']}/")
    assert read.json() == season
    listed = api_as(ana).get(f"/api/clubs/{club.pk}/").json()["seasons"]
    assert listed == [
        {"id": season["id"], "name": "Época 2026/27", "start": "2026-09-01", "end": "2027-06-30"}
    ]
    players["Rui"].user = rui
    players["Rui"].save()
    assert (
        api_as(rui).post(f"/api/clubs/{club.pk}/seasons/", body, format="json").status_code == 403
    )


@pytest.mark.parametrize(
    "body",
    [
        {"name": "X", "start": "2027-01-01", "end": "2026-01-01"},
        {"name": "X", "start": "not a day", "end": "2026-01-01"},
        {"name": "", "start": "2026-01-01", "end": "2026-12-31"},
        {"name": "X", "start": "2026-01-01", "end": "2026-12-31", "points": [10, -1]},
        {"name": "X", "start": "2026-01-01", "end": "2026-12-31", "points": "10,8"},
        {"name": "X", "start": "2026-01-01", "end": "2026-12-31", "taking_part": -1},
    ],
)
def test_a_bad_season_is_refused(api_as, club, ana, body):
    club, _players = club
    response = api_as(ana).post(f"/api/clubs/{club.pk}/seasons/", body, format="json")
    assert response.status_code == 400
    assert response.json()["detail"]
    assert not club.seasons.exists()


def test_a_club_rubber_takes_no_seats_of_its_own(api_as, club, ana):
    club, players = club
    body = {
        "club": club.pk,
        "players": seats(players, "Ana", "Rui", "Zé", "Maria"),
        "seats": {"a1": "A", "a2": "B", "b1": "C", "b2": "D"},
    }
    response = api_as(ana).post("/api/matches/", body, format="json")
    assert response.status_code == 400
    assert "leave the seats out" in response.json()["detail"]
    assert not Match.objects.exists()
