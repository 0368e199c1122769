"""Matches: start, list, the sheet, its ETag, join, watch and renewed links."""

import pytest

from matches import rules
from matches.models import Event, Match, Night, User
from tests.conftest import SEAT_NAMES


def start(api_as, user, **body):
    body = {"seats": SEAT_NAMES, **body}
    return api_as(user).post("/api/matches/", body, format="json")


def play(match, by, *cells):
    for side, games in cells:
        match.record(by, deal=rules.current_deal(match.sheet()), side=side, games=games)


# Start --------------------------------------------------------------------------------


def test_host_starts_a_match_in_a_new_night(api_as, ana):
    response = start(api_as, ana, host_seat="a1", direction="clockwise", first_dealer="b1")
    assert response.status_code == 201
    body = response.json()
    match = Match.objects.get(pk=body["id"])
    assert match.host == ana
    assert match.seats.get(position="a1").user == ana
    assert body["sides"]["a"]["seats"] == [
        {"seat": "a1", "name": "Ana", "user": ana.pk},
        {"seat": "a2", "name": "Rui", "user": None},
    ]
    assert body["direction"] == "clockwise"
    # Clockwise the turn passes to the left: b1 deals, a1 on b1's left leads.
    assert (body["dealer"], body["leader"]) == ("b1", "a1")
    assert body["join_token"] == match.join_token
    assert body["night"] == match.night_id
    # The ETag of the host's sheet (it shows the tokens), as her next read gives it.
    assert response["ETag"] == api_as(ana).get(f"/api/matches/{match.pk}/")["ETag"]


def test_host_may_keep_the_sheet_without_a_seat(api_as, ana):
    body = start(api_as, ana, host_seat=None).json()
    assert all(seat["user"] is None for side in "ab" for seat in body["sides"][side]["seats"])


def test_host_adds_a_match_to_their_own_night(api_as, match, ana):
    response = start(api_as, ana, night=match.night_id)
    assert response.status_code == 201
    assert response.json()["night"] == match.night_id


def test_a_night_of_someone_else_is_refused(api_as, match, rui, olga):
    response = start(api_as, olga, night=match.night_id)
    assert response.status_code == 400
    assert response.json()["detail"] == "There is no such night of yours."
    # Rui sat in the night, so he sees it, but only its host adds to it.
    response = start(api_as, rui, night=match.night_id)
    assert response.status_code == 403
    assert response.json()["detail"] == "Only the night's host can add a match to it."
    assert Match.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"seats": {**SEAT_NAMES, "b2": "  "}}, "Each seat's name can't be empty."),
        ({"seats": {"a1": "Ana"}}, "seats.a2: This field is required."),
        ({"seats": None}, "seats: This field may not be null."),
        ({"host_seat": "c1"}, "The host's seat must be one of the four seats, or none."),
        ({"direction": "sideways"}, "The direction must be counterclockwise or clockwise."),
        (
            {"night": 10**30},
            "night: Ensure this value is less than or equal to 9223372036854775807.",
        ),
        ({"night": "first"}, "night: A valid integer is required."),
    ],
)
def test_bad_match_is_refused_and_nothing_is_started(api_as, ana, body, detail):
    response = api_as(ana).post("/api/matches/", {"seats": SEAT_NAMES, **body}, format="json")
    assert response.status_code == 400
    assert response.json()["detail"] == detail
    assert not Match.objects.exists()
    assert not Night.objects.exists()


def test_anonymous_cannot_start_a_match(api_as, db):
    response = start(api_as, None)
    assert response.status_code == 401
    assert response.json()["detail"]


# List ---------------------------------------------------------------------------------


def test_list_has_matches_hosted_or_seated_newest_first(api_as, match, ana, rui, olga):
    played = Match.objects.start(olga, SEAT_NAMES, host_seat="a1")
    played.join(rui, token=played.join_token, position="b2")
    Match.objects.start(olga, SEAT_NAMES)  # Rui is not in this one
    hosted = Match.objects.start(ana, SEAT_NAMES)
    body = api_as(rui).get("/api/matches/").json()
    assert body["count"] == 2
    assert [m["id"] for m in body["results"]] == [played.pk, match.pk]
    body = api_as(ana).get("/api/matches/").json()
    assert [m["id"] for m in body["results"]] == [hosted.pk, match.pk]
    assert api_as(olga).get("/api/matches/").json()["count"] == 2


def test_list_gives_each_result_without_the_deals(api_as, match, ana):
    play(match, ana, ("a", 2), ("a", 2))
    result = api_as(ana).get("/api/matches/").json()["results"][0]
    assert result["status"] == "won"
    assert result["winner"] == "a"
    assert result["marks"] == ["shutout"]
    assert result["sides"]["a"]["games"] == 4
    assert "deals" not in result


def test_list_filters_by_status_and_night(api_as, match, ana, ze):
    other = Match.objects.start(ana, SEAT_NAMES)
    match.end(ze)
    client = api_as(ana)
    assert [m["id"] for m in client.get("/api/matches/?status=ended").json()["results"]] == [
        match.pk
    ]
    assert [m["id"] for m in client.get("/api/matches/?status=in_play").json()["results"]] == [
        other.pk
    ]
    by_night = client.get(f"/api/matches/?night={other.night_id}").json()["results"]
    assert [m["id"] for m in by_night] == [other.pk]


@pytest.mark.parametrize(
    "query", ["status=finished", "night=tonight", "night=0", f"night={10**20}", "page=0"]
)
def test_list_refuses_bad_filters(api_as, match, ana, query):
    response = api_as(ana).get(f"/api/matches/?{query}")
    assert response.status_code == 400
    assert response.json()["detail"]


def test_list_is_paginated_by_twenty(api_as, ana):
    for _ in range(21):
        Match.objects.start(ana, SEAT_NAMES)
    first = api_as(ana).get("/api/matches/").json()
    assert len(first["results"]) == 20
    assert first["next"].endswith("?page=2")
    second = api_as(ana).get("/api/matches/?page=2").json()
    assert len(second["results"]) == 1
    missing = api_as(ana).get("/api/matches/?page=3")
    assert missing.status_code == 404
    assert missing.json()["detail"]


def test_list_needs_sign_in(api_as, db):
    assert api_as().get("/api/matches/").status_code == 401


def test_list_query_count_stays_flat_from_1_to_200_matches(
    api_as, ana, rui, django_assert_num_queries
):
    def count_queries():
        client = api_as(ana)
        with django_assert_num_queries(3) as captured:  # count, page, seats
            response = client.get("/api/matches/")
        assert response.status_code == 200
        return len(captured.captured_queries)

    first = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    first.join(rui, token=first.join_token, position="a2")
    play(first, ana, ("a", 2))
    one = count_queries()
    for number in range(199):
        match = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
        if number % 2:
            match.join(rui, token=match.join_token, position="b1")
        play(match, ana, ("b", 1), ("a", 0))
    assert Match.objects.count() == 200
    assert count_queries() == one


# The sheet ----------------------------------------------------------------------------


def test_sheet_has_the_shape_of_the_contract(api_as, match, ana, ze, maria):
    play(match, ana, ("a", 0), ("b", 0))  # a tie
    match.record(ze, deal=2, side="b", games=2)
    match.record(maria, deal=3, side="b", games=0)
    match.add_note(ze, side="a", text="Rui revoked in deal 2")
    body = api_as(maria).get(f"/api/matches/{match.pk}/").json()
    assert body["id"] == match.pk
    assert body["status"] == "in_play"
    assert body["target"] == 4
    assert body["sides"]["b"] == {
        "name": "Zé & Maria",
        "seats": [
            {"seat": "b1", "name": "Zé", "user": ze.pk},
            {"seat": "b2", "name": "Maria", "user": maria.pk},
        ],
        "games": 2,
    }
    assert body["deals"] == [
        {"number": 1, "a": 0, "b": 0, "complete": True, "tie": True, "sweep": False,
         "redeal": False, "a_by": "Ana", "b_by": "Ana"},
        {"number": 2, "a": 0, "b": 2, "complete": True, "tie": False, "sweep": False,
         "redeal": False, "a_by": None, "b_by": "Zé"},
        {"number": 3, "a": None, "b": 0, "complete": False, "tie": False, "sweep": False,
         "redeal": False, "a_by": None, "b_by": "Maria"},
    ]  # fmt: skip
    assert body["current_deal"] == 3
    assert body["pending_extra"] == 0
    assert body["winner"] is None
    assert body["marks"] == []
    # Counter-clockwise from a1: a1, b1, a2 deals the third; b2 on a2's right leads.
    assert (body["dealer"], body["leader"]) == ("a2", "b2")
    assert body["ended_by"] is None
    [note] = body["notes"]
    assert {k: note[k] for k in ("side", "deal", "text", "author", "withdrawn")} == {
        "side": "a",
        "deal": 3,
        "text": "Rui revoked in deal 2",
        "author": "Zé",
        "withdrawn": False,
    }
    assert body["version"] == match.events.count()
    assert "join_token" not in body
    assert "watch_token" not in body


def test_sheet_shows_pending_extra_after_a_tie(api_as, match, ana):
    play(match, ana, ("a", 0), ("b", 0), ("a", 0), ("b", 0))
    body = api_as(ana).get(f"/api/matches/{match.pk}/").json()
    assert (body["current_deal"], body["pending_extra"]) == (3, 2)


def test_a_won_sheet_has_no_current_deal(api_as, match, ana):
    play(match, ana, ("b", 4))
    body = api_as(ana).get(f"/api/matches/{match.pk}/").json()
    assert body["status"] == "won"
    assert body["winner"] == "b"
    assert body["marks"] == ["bandeira"]
    assert (body["current_deal"], body["dealer"], body["leader"]) == (None, None, None)


def test_only_the_host_sees_the_tokens(api_as, match, ana, rui):
    assert api_as(ana).get(f"/api/matches/{match.pk}/").json()["watch_token"] == (match.watch_token)
    assert "watch_token" not in api_as(rui).get(f"/api/matches/{match.pk}/").json()


def test_outsider_gets_404_and_anonymous_401(api_as, match, olga):
    response = api_as(olga).get(f"/api/matches/{match.pk}/")
    assert response.status_code == 404
    assert response.json() == {
        "detail": "There is nothing here, or it is not yours to see. Is it your match? Log in."
    }
    response = api_as().get(f"/api/matches/{match.pk}/")
    assert response.status_code == 401
    assert response.json()["detail"]


@pytest.mark.parametrize("path", ["999999", str(10**30), "abc", "-1", "1.5"])
def test_no_such_match_is_a_json_404(api_as, ana, path):
    response = api_as(ana).get(f"/api/matches/{path}/")
    assert response.status_code == 404
    assert response.json()["detail"]


def test_etag_and_if_none_match(api_as, match, rui):
    client = api_as(rui)
    response = client.get(f"/api/matches/{match.pk}/")
    etag = response["ETag"]
    unchanged = client.get(f"/api/matches/{match.pk}/", HTTP_IF_NONE_MATCH=etag)
    assert unchanged.status_code == 304
    assert unchanged.content == b""
    assert unchanged["ETag"] == etag
    weak = client.get(f"/api/matches/{match.pk}/", HTTP_IF_NONE_MATCH=f'"0", W/{etag}')
    assert weak.status_code == 304
    match.record(rui, deal=1, side="a", games=1)
    changed = client.get(f"/api/matches/{match.pk}/", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200
    assert changed["ETag"] != etag


def test_an_unchanged_sheet_answers_in_one_query(api_as, match, rui, django_assert_num_queries):
    client = api_as(rui)
    etag = client.get(f"/api/matches/{match.pk}/")["ETag"]
    with django_assert_num_queries(1):
        assert client.get(f"/api/matches/{match.pk}/", HTTP_IF_NONE_MATCH=etag).status_code == 304


def test_host_and_member_etags_differ(api_as, match, ana, rui):
    host_etag = api_as(ana).get(f"/api/matches/{match.pk}/")["ETag"]
    member = api_as(rui).get(f"/api/matches/{match.pk}/", HTTP_IF_NONE_MATCH=host_etag)
    assert member.status_code == 200


def test_sheet_query_count_stays_flat_from_1_to_30_deals(
    api_as, match, ana, django_assert_num_queries
):
    def count_queries():
        client = api_as(ana)
        # Whether the caller may see it (and its version, for the ETag); the match
        # with its host, then its seats, deals and notes, and its version again (the
        # sheet of one moment); what undo would take back; the open requests for a seat.
        with django_assert_num_queries(8) as captured:
            response = client.get(f"/api/matches/{match.pk}/")
        assert response.status_code == 200
        return len(captured.captured_queries), response.json()

    play(match, ana, ("a", 1))
    match.add_note(ana, side="b", text="revoke")
    one, body = count_queries()
    assert len(body["deals"]) == 1
    play(match, ana, *[("a", 0), ("b", 0)] * 28)
    play(match, ana, ("b", 0))
    for number in range(29):
        match.add_note(ana, side="a", deal=number + 1, text=f"note {number}")
    many, body = count_queries()
    assert len(body["deals"]) == 30
    assert many == one


# Join -------------------------------------------------------------------------------------


@pytest.fixture
def open_match(ana):
    """Ana hosts from a1; the other three seats are free."""
    return Match.objects.start(ana, SEAT_NAMES, host_seat="a1")


def test_join_takes_a_free_seat(api_as, open_match, rui):
    response = api_as(rui).post(
        f"/api/matches/{open_match.pk}/join/",
        {"token": open_match.join_token, "seat": "a2", "name": "Rui Pedro"},
        format="json",
    )
    assert response.status_code == 200
    seat = response.json()["sides"]["a"]["seats"][1]
    assert seat == {"seat": "a2", "name": "Rui Pedro", "user": rui.pk}
    assert "join_token" not in response.json()


def test_a_guest_joins_with_the_link(api_as, open_match):
    token = api_as().post("/api/auth/guest/", {"name": "Zé"}, format="json").json()["token"]
    client = api_as()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.post(
        f"/api/matches/{open_match.pk}/join/",
        {"token": open_match.join_token, "seat": "b1"},
        format="json",
    )
    assert response.status_code == 200
    assert open_match.seats.get(position="b1").user == User.objects.get(display_name="Zé")
    assert client.get(f"/api/matches/{open_match.pk}/").status_code == 200


def test_join_with_a_wrong_token_is_404_as_for_no_match(api_as, open_match, olga):
    # The same answer as for a match that doesn't exist: ids can't be told apart.
    response = api_as(olga).post(
        f"/api/matches/{open_match.pk}/join/", {"token": "guess", "seat": "b1"}, format="json"
    )
    assert response.status_code == 404
    assert response.json()["detail"] == (
        "This join link is not valid any more: ask the host for the new one."
    )
    assert not open_match.seats.filter(user=olga).exists()


def test_join_a_taken_seat_is_409(api_as, match, olga):
    response = api_as(olga).post(
        f"/api/matches/{match.pk}/join/", {"token": match.join_token, "seat": "b1"}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["detail"] == "That seat is taken by Zé."


def test_join_twice_is_409(api_as, match, rui):
    response = api_as(rui).post(
        f"/api/matches/{match.pk}/join/", {"token": match.join_token, "seat": "b1"}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["detail"] == "You already hold a seat in this match."


def test_join_needs_a_seat_and_sign_in(api_as, open_match, olga):
    url = f"/api/matches/{open_match.pk}/join/"
    response = api_as(olga).post(url, {"token": open_match.join_token, "seat": "c3"}, format="json")
    assert response.status_code == 400
    assert response.json()["detail"] == "Pick one of the four seats."
    response = api_as().post(url, {"token": open_match.join_token, "seat": "b1"}, format="json")
    assert response.status_code == 401


def test_join_no_such_match_is_404(api_as, olga):
    response = api_as(olga).post(
        "/api/matches/999/join/", {"token": "x", "seat": "b1"}, format="json"
    )
    assert response.status_code == 404


# Watch ----------------------------------------------------------------------------------


def test_watch_link_shows_the_sheet_without_sign_in_or_tokens(api_as, match, ana):
    play(match, ana, ("a", 1))
    response = api_as().get(f"/api/watch/{match.watch_token}/")
    assert response.status_code == 200
    body = response.json()
    assert body["deals"][0]["a"] == 1
    assert "join_token" not in body
    assert "watch_token" not in body
    again = api_as().get(f"/api/watch/{match.watch_token}/", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304


def test_watch_with_a_wrong_token_is_404(api_as, match):
    response = api_as().get("/api/watch/not-the-token/")
    assert response.status_code == 404
    assert (
        response.json()["detail"]
        == "This watch link is not valid any more: ask the host for the new one."
    )


def test_watch_is_read_only(api_as, match):
    response = api_as().post(f"/api/watch/{match.watch_token}/", {}, format="json")
    assert response.status_code == 405
    assert response.json()["detail"]


def test_unchanged_watch_answers_in_one_query(api_as, match, django_assert_num_queries):
    etag = api_as().get(f"/api/watch/{match.watch_token}/")["ETag"]
    with django_assert_num_queries(1):
        response = api_as().get(f"/api/watch/{match.watch_token}/", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304


# Renew links ------------------------------------------------------------------------------


def test_host_renews_the_links_and_the_old_ones_stop_working(api_as, match, ana, olga):
    old_join, old_watch = match.join_token, match.watch_token
    response = api_as(ana).post(f"/api/matches/{match.pk}/links/")
    assert response.status_code == 200
    assert response.json()["join_token"] != old_join
    assert api_as().get(f"/api/watch/{old_watch}/").status_code == 404
    assert api_as().get(f"/api/watch/{response.json()['watch_token']}/").status_code == 200
    assert match.events.filter(action=Event.RENEW).count() == 1


def test_member_cannot_renew_the_links(api_as, match, rui):
    response = api_as(rui).post(f"/api/matches/{match.pk}/links/")
    assert response.status_code == 403
    assert response.json()["detail"] == "Only the host can renew the links."


def test_join_with_a_non_ascii_token_is_404_not_500(api_as, open_match, olga):
    response = api_as(olga).post(
        f"/api/matches/{open_match.pk}/join/", {"token": "ção-€", "seat": "b1"}, format="json"
    )
    assert response.status_code == 404
    assert response.json()["detail"]


def test_the_sheet_is_private_and_always_revalidated(api_as, match, rui):
    response = api_as(rui).get(f"/api/matches/{match.pk}/")
    assert response["Cache-Control"] == "private, no-cache"
    unchanged = api_as(rui).get(f"/api/matches/{match.pk}/", HTTP_IF_NONE_MATCH=response["ETag"])
    assert unchanged["Cache-Control"] == "private, no-cache"


def test_a_browser_asking_for_html_still_gets_json(api_as, match, rui):
    accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    response = api_as(rui).get(f"/api/matches/{match.pk}/", HTTP_ACCEPT=accept)
    assert response["Content-Type"] == "application/json"
    assert response.json()["id"] == match.pk
