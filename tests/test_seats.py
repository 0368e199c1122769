"""Getting back into a seat from another browser: the host frees it or makes a link
for it; or the player asks, and a member of the table or the host approves."""

import re
from html import unescape

import pytest

from matches import values
from matches.models import Event, Match, NotAllowed, NotFound, SeatRequest, User

from .pages import HTMX, browser, text


def holder(match, position):
    return match.seats.get(position=position).user


def actions(match):
    return list(match.events.values_list("action", flat=True))


# The model --------------------------------------------------------------------------


def test_the_host_frees_a_seat_and_the_history_says_so(match, ana, ze):
    version = match.version

    match.free_seat(ana, "b1")

    assert holder(match, "b1") is None
    assert match.seats.get(position="b1").name == "Zé"
    event = match.events.last()
    assert (event.action, event.by, event.before["user"]) == (Event.SEAT_FREED, ana, ze.pk)
    assert Match.objects.get().version == version + 1


def test_only_the_host_frees_a_seat(match, rui):
    with pytest.raises(NotAllowed, match="Only the host can free a seat"):
        match.free_seat(rui, "b1")
    match.free_seat(match.host, "b1")
    with pytest.raises(values.Conflict, match="free already"):
        match.free_seat(match.host, "b1")


def test_a_seat_link_takes_the_seat_once_in_place_of_its_holder(match, ana, ze, olga):
    seat = match.make_seat_link(ana, "b1")

    match.take_seat_by_link(olga, "b1", seat.link_token)

    assert holder(match, "b1") == olga
    assert match.seats.get(position="b1").link_token == ""
    event = match.events.last()
    assert event.action == Event.JOIN
    assert event.after == {"seat": "b1", "name": "Zé", "by_link": True}
    assert event.before["user"] == ze.pk
    # Spent: it takes nothing from Olga now.
    with pytest.raises(NotAllowed, match="not valid any more"):
        match.take_seat_by_link(ze, "b1", seat.link_token)
    # A second tap by the one who took it changes nothing.
    version = Match.objects.get().version
    match.take_seat_by_link(olga, "b1", seat.link_token)
    assert Match.objects.get().version == version


def test_only_the_host_makes_a_seat_link_and_the_history_keeps_no_token(match, ana, ze):
    with pytest.raises(NotAllowed):
        match.make_seat_link(ze, "b1")
    seat = match.make_seat_link(ana, "b1")
    assert seat.link_token
    assert seat.link_token not in str(match.events.last().after)


def test_a_wrong_seat_link_is_refused(match, ana, olga):
    match.make_seat_link(ana, "b1")
    with pytest.raises(NotAllowed):
        match.take_seat_by_link(olga, "b1", "made-up")
    with pytest.raises(NotAllowed):
        match.take_seat_by_link(olga, "b2", "")


def test_ask_and_approve_moves_the_seat(match, rui, ze, olga):
    asked = match.ask_for_seat(olga, token=match.join_token, position="b1")

    match.answer_seat_request(rui, asked.pk, approve=True)

    assert holder(match, "b1") == olga
    asked.refresh_from_db()
    assert (asked.approved, asked.answered_by) == (True, rui)
    assert actions(match)[-2:] == [Event.SEAT_ASKED, Event.SEAT_GIVEN]
    assert match.events.last().before["user"] == ze.pk


def test_turned_down_the_seat_stays_and_it_is_closed(match, maria, olga):
    asked = match.ask_for_seat(olga, token=match.join_token, position="b1")

    match.answer_seat_request(maria, asked.pk, approve=False)

    assert holder(match, "b1").name == "Zé"
    with pytest.raises(values.Conflict, match="answered already"):
        match.answer_seat_request(maria, asked.pk, approve=True)
    assert match.events.last().action == Event.SEAT_REFUSED


def test_asking_needs_the_join_link_and_a_held_seat(match, ana, olga):
    with pytest.raises(NotAllowed, match="join link"):
        match.ask_for_seat(olga, token="made-up", position="b1")
    with pytest.raises(values.Conflict, match="already hold a seat"):
        match.ask_for_seat(ana, token=match.join_token, position="b1")
    match.free_seat(ana, "b2")
    with pytest.raises(values.Conflict, match="free: take it"):
        match.ask_for_seat(olga, token=match.join_token, position="b2")


def test_one_open_request_a_person_and_asking_again_is_the_same(match, olga):
    first = match.ask_for_seat(olga, token=match.join_token, position="b1")
    again = match.ask_for_seat(olga, token=match.join_token, position="b1")
    assert first.pk == again.pk
    with pytest.raises(values.Conflict, match="wait for the answer"):
        match.ask_for_seat(olga, token=match.join_token, position="b2")
    assert SeatRequest.objects.count() == 1


def test_only_the_table_answers(match, olga):
    stranger = User.create_guest("Xico")
    asked = match.ask_for_seat(olga, token=match.join_token, position="b1")
    with pytest.raises(NotAllowed):
        match.answer_seat_request(stranger, asked.pk, approve=True)
    with pytest.raises(NotAllowed):
        match.answer_seat_request(olga, asked.pk, approve=True)  # not for oneself
    with pytest.raises(NotFound):
        match.answer_seat_request(match.host, 10**9, approve=True)


def test_taking_a_seat_otherwise_closes_the_request(match, ana, olga):
    asked = match.ask_for_seat(olga, token=match.join_token, position="b1")
    match.free_seat(ana, "b2")

    match.join(olga, token=match.join_token, position="b2")

    asked.refresh_from_db()
    assert asked.answered_at is not None and asked.approved is None
    assert match.open_seat_requests() == []


# The pages ------------------------------------------------------------------------------


def test_a_full_table_offers_to_ask_for_each_seat(match):
    page = text(browser().get(f"/join/{match.join_token}/"))

    assert "All four seats are taken" in page
    for name in ("Ana", "Rui", "Zé", "Maria"):
        assert f"This is my seat ({name}): ask for it back" in page


def test_asking_is_a_post_once_the_link_is_good(match):
    url = f"/join/{match.join_token}/ask/"

    assert browser().get(url).status_code == 405
    assert browser().get(url.replace(match.join_token, "x" * 32)).status_code == 404
    assert not User.objects.filter(is_guest=True).exists()


def test_a_new_browser_asks_and_waits_then_goes_to_the_sheet(match, rui, ze):
    phone = browser()

    response = phone.post(f"/join/{match.join_token}/ask/", {"seat": "b1"})

    assert response.status_code == 302
    assert response["Location"] == f"/join/{match.join_token}/"
    guest = User.objects.get(is_guest=True)
    assert guest.name == "Zé"
    waiting = text(phone.get(f"/join/{match.join_token}/"))
    assert "You asked for Zé's seat." in waiting
    # On the sheet of every member: the request, with Approve and Turn down.
    sheet = text(browser(rui).get(f"/matches/{match.pk}/"))
    assert "Zé, on a new phone or browser, asks for their seat back." in sheet
    asked = SeatRequest.objects.get()
    answer = f"/matches/{match.pk}/seat-requests/{asked.pk}/"
    assert f'action="{answer}"' in sheet

    response = browser(rui).post(answer, {"approve": "yes"})

    assert response.status_code == 302
    assert holder(match, "b1") == guest
    assert phone.get(f"/join/{match.join_token}/")["Location"] == f"/matches/{match.pk}/"
    assert "asks for" not in text(browser(rui).get(f"/matches/{match.pk}/"))


def test_turning_down_with_htmx_answers_the_sheet(match, maria, olga):
    asked = match.ask_for_seat(olga, token=match.join_token, position="b1")

    response = browser(maria).post(
        f"/matches/{match.pk}/seat-requests/{asked.pk}/", {"approve": "no"}, **HTMX
    )

    assert response.status_code == 200
    assert 'id="sheet"' in text(response)
    assert holder(match, "b1").name == "Zé"
    assert "turned down" in text(browser(olga).get(f"/join/{match.join_token}/"))


def test_an_answer_that_is_neither_yes_nor_no_is_refused_and_changes_nothing(match, maria, olga):
    asked = match.ask_for_seat(olga, token=match.join_token, position="b1")
    version = Match.objects.get(pk=match.pk).version

    response = browser(maria).post(
        f"/matches/{match.pk}/seat-requests/{asked.pk}/", {"approve": "maybe"}, **HTMX
    )

    # The API's words for the same answer: one rule reads it on both.
    assert response.status_code == 400
    assert "A box is either ticked or not: maybe is neither." in text(response)
    asked.refresh_from_db()
    assert asked.answered_at is None
    assert Match.objects.get(pk=match.pk).version == version


def test_the_invite_panel_lists_the_seats_and_frees_and_links_them(match, ana, ze):
    client = browser(ana)
    panel = text(client.get(f"/matches/{match.pk}/invite/", **HTMX))
    assert panel.count("Free this seat") == 4
    assert panel.count("Make a link for this seat") == 4

    panel = text(client.post(f"/matches/{match.pk}/seats/b1/free/", **HTMX))
    assert panel.count("Free this seat") == 3
    assert holder(match, "b1") is None

    panel = text(client.post(f"/matches/{match.pk}/seats/b2/link/", **HTMX))
    token = match.seats.get(position="b2").link_token
    assert f"/seat/{match.pk}/b2/{token}/" in panel
    assert 'class="qr"' in panel


def test_only_the_host_frees_seats_from_a_page(match, rui):
    response = browser(rui).post(f"/matches/{match.pk}/seats/b1/free/")
    assert response.status_code == 302
    assert holder(match, "b1").name == "Zé"


def test_a_seat_link_page_takes_the_seat_in_one_tap(match, ana, maria):
    seat = match.make_seat_link(ana, "b2")
    url = f"/seat/{match.pk}/b2/{seat.link_token}/"
    phone = browser()

    page = phone.get(url)  # a messaging app's preview opens it: nothing changes
    assert page.status_code == 200
    assert "Maria" in text(page)
    assert holder(match, "b2") == maria

    response = phone.post(url)

    assert response.status_code == 302
    assert response["Location"] == f"/matches/{match.pk}/"
    assert holder(match, "b2").is_guest
    assert phone.get(url)["Location"] == f"/matches/{match.pk}/"  # spent, and theirs
    assert browser().get(url).status_code == 404


def test_the_history_page_names_every_change_of_seat(match, ana, rui, olga):
    match.free_seat(ana, "b1")
    match.join(olga, token=match.join_token, position="b1")
    asked = match.ask_for_seat(User.create_guest("Zé"), token=match.join_token, position="b1")
    match.answer_seat_request(rui, asked.pk, approve=True)

    page = unescape(text(browser(ana).get(f"/history/{match.pk}/")))

    assert "freed a seat" in page
    assert "asked for a seat back" in page
    assert "gave a seat back" in page
    # By the seat's name as the table typed it, never its code.
    assert "Zé's seat, to Zé" in page
    assert "took a seat: Zé's seat" in page  # Olga, in the seat the host typed as Zé
    assert not re.search(r"\((a|b)[12]\)", page)


# The API ----------------------------------------------------------------------------------


def test_api_free_and_link_a_seat(api_as, match, ana, rui):
    response = api_as(ana).post(f"/api/matches/{match.pk}/seats/b1/free/", format="json")
    assert response.status_code == 200
    assert response.json()["sides"]["b"]["seats"][0]["user"] is None

    response = api_as(ana).post(f"/api/matches/{match.pk}/seats/b2/link/", format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["seat"] == "b2"
    assert body["url"].endswith(f"/seat/{match.pk}/b2/{body['link_token']}/")

    refused = api_as(rui).post(f"/api/matches/{match.pk}/seats/a1/free/", format="json")
    assert refused.status_code == 403
    assert refused.json()["detail"] == "Only the host can free a seat."


def test_api_claim_a_seat_by_its_link(api_as, match, ana, olga):
    token = match.make_seat_link(ana, "b2").link_token
    url = f"/api/matches/{match.pk}/seats/b2/claim/"

    assert api_as(olga).post(url, {"token": "nope"}, format="json").status_code == 404
    response = api_as(olga).post(url, {"token": token}, format="json")

    assert response.status_code == 200
    assert holder(match, "b2") == olga
    assert api_as(olga).post(url, {"token": token}, format="json").status_code == 200
    gone = api_as(ana).post("/api/matches/999999/seats/b2/claim/", {"token": token}, format="json")
    assert gone.status_code == 404


def test_api_ask_and_answer(api_as, match, ze, maria, olga):
    url = f"/api/matches/{match.pk}/seat-requests/"
    assert api_as(olga).post(url, {"token": "x", "seat": "b1"}, format="json").status_code == 404

    response = api_as(olga).post(url, {"token": match.join_token, "seat": "b1"}, format="json")

    assert response.status_code == 201
    asked = response.json()
    assert (asked["seat"], asked["name"], asked["asker"], asked["status"]) == (
        "b1",
        "Zé",
        "Olga",
        "open",
    )
    sheet = api_as(maria).get(f"/api/matches/{match.pk}/").json()
    assert [request["id"] for request in sheet["seat_requests"]] == [asked["id"]]
    assert sheet["seat_requests"][0]["held"] is True

    answer = f"/api/matches/{match.pk}/seat-requests/{asked['id']}/"
    assert api_as(maria).post(answer, {"approve": "maybe"}, format="json").status_code == 400
    response = api_as(maria).post(answer, {"approve": True}, format="json")

    assert response.status_code == 200
    assert response.json()["seat_requests"] == []
    assert holder(match, "b1") == olga
    again = api_as(maria).post(answer, {"approve": False}, format="json")
    assert again.status_code == 409
    history = api_as(maria).get(f"/api/matches/{match.pk}/history/").json()
    assert [event["action"] for event in history][-2:] == ["seat_asked", "seat_given"]


def test_api_seats_are_in_the_schema(api_as, ana):
    schema = api_as(ana).get("/api/schema/", HTTP_ACCEPT="application/json").json()
    paths = schema["paths"]
    for path in (
        "/api/matches/{id}/seats/{seat}/free/",
        "/api/matches/{id}/seats/{seat}/link/",
        "/api/matches/{id}/seats/{seat}/claim/",
        "/api/matches/{id}/seat-requests/",
        "/api/matches/{id}/seat-requests/{request_id}/",
    ):
        assert "post" in paths[path], path


def test_two_approvals_of_two_asks_for_one_seat_the_second_is_told_what_changed(
    match, ana, ze, maria, api_as
):
    first = match.ask_for_seat(User.create_guest("Rui"), token=match.join_token, position="a2")
    second = match.ask_for_seat(User.create_guest("Rui"), token=match.join_token, position="a2")
    seen = Match.objects.get(pk=match.pk).version

    approved = api_as(ze).post(
        f"/api/matches/{match.pk}/seat-requests/{first.pk}/",
        {"approve": True, "version": seen},
        format="json",
    )
    late = browser(maria).post(
        f"/matches/{match.pk}/seat-requests/{second.pk}/",
        {"approve": "yes", "version": str(seen)},
        **HTMX,
    )

    assert approved.status_code == 200
    assert late.status_code == 409
    assert "The sheet changed since you saw it" in text(late)
    assert holder(match, "a2") == first.user
    assert SeatRequest.objects.get(pk=second.pk).answered_at is None


def test_seat_changes_on_an_ended_rubber_are_refused_as_joining_is(match, ana, ze, olga, api_as):
    seat = match.make_seat_link(ana, "b2")
    match.end(ze)
    for answer in (
        api_as(ana).post(f"/api/matches/{match.pk}/seats/b1/free/", {}, format="json"),
        api_as(ana).post(f"/api/matches/{match.pk}/seats/b1/link/", {}, format="json"),
        api_as(olga).post(
            f"/api/matches/{match.pk}/seats/b2/claim/", {"token": seat.link_token}, format="json"
        ),
        api_as(olga).post(
            f"/api/matches/{match.pk}/join/",
            {"token": match.join_token, "seat": "b1"},
            format="json",
        ),
    ):
        assert answer.status_code == 409, answer.content
        assert "ended by Zé" in answer.json()["detail"]
