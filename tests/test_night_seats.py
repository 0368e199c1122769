"""Seats belong to the night (SPEC "Seats"): one join link for the night that leads to
the rubber in play; asking for a seat back from it lands there and shows on that
rubber's sheets; and a guest who gets their seat back on a new browser is the same
person again, so the history and every tally show them once."""

from django.conf import settings

from matches.models import Match, User
from matches.standings import standings, tally

from .nights import play
from .pages import HTMX, browser, text


def won_and_rematched(match, ana):
    play(match, ana, ("a", 2), ("a", 2))
    return match.rematch(ana)


def signed_in_as(client):
    """The account the client's session is signed in as, or None."""
    from django.contrib.auth import SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    key = client.cookies.get(settings.SESSION_COOKIE_NAME)
    if key is None:
        return None
    user_id = SessionStore(session_key=key.value).get(SESSION_KEY)
    return User.objects.filter(pk=user_id).first()


def guests(match, ana, rui, ze, maria):
    """The table as four guests: Rui, Zé and Maria have no password."""
    User.objects.filter(pk__in=[rui.pk, ze.pk, maria.pk]).update(is_guest=True)


def test_the_nights_join_link_leads_to_the_rubber_in_play(match, ana, maria):
    following = won_and_rematched(match, ana)
    following.free_seat(ana, "b2")
    newcomer = browser()

    page = text(newcomer.get(f"/join/{match.join_token}/"))

    # The second rubber's free seat, not "All four seats are taken" of the first.
    assert f'action="/join/{match.join_token}/"' in page
    assert "All four seats are taken" not in page
    assert following.join_token == match.join_token
    response = newcomer.post(f"/join/{match.join_token}/", {"seat": "b2"})
    assert response.status_code == 302
    assert response["Location"] == f"/matches/{following.pk}/"


def test_asking_from_the_nights_link_lands_in_the_rubber_in_play(match, ana, rui, ze):
    following = won_and_rematched(match, ana)
    newcomer = browser()
    newcomer.post(f"/join/{match.join_token}/ask/", {"seat": "a2"})

    assert following.seat_requests.count() == 1
    assert match.seat_requests.count() == 0
    # The table sees it on the sheet it plays on.
    assert "asks for" in text(browser(ze).get(f"/matches/{following.pk}/sheet/", **HTMX))


def test_a_guest_back_by_a_seat_link_is_the_same_person_again(match, ana, rui, ze, maria):
    guests(match, ana, rui, ze, maria)
    seat = match.make_seat_link(ana, "a2")
    lost_phone, new_phone = browser(rui), browser()

    new_phone.post(f"/seat/{match.pk}/a2/{seat.link_token}/")

    assert signed_in_as(new_phone) == rui
    assert match.seats.get(position="a2").user == rui
    assert User.objects.filter(display_name="Rui").count() == 1
    # The lost phone holds nothing any more.
    assert lost_phone.get(f"/matches/{match.pk}/").status_code == 404


def test_a_guest_let_back_in_by_the_table_is_the_same_person_again(match, ana, rui, ze, maria):
    guests(match, ana, rui, ze, maria)
    new_phone = browser()
    new_phone.post(f"/join/{match.join_token}/ask/", {"seat": "a2"})
    asked = match.seat_requests.get()
    assert asked.newcomer

    match.answer_seat_request(ze, asked.pk, True)

    assert match.seats.get(position="a2").user == rui
    # The asking phone's next look at the join page signs it in as Rui and sends it on.
    response = new_phone.get(f"/join/{match.join_token}/", **HTMX)
    assert response["HX-Redirect"] == f"/matches/{match.pk}/"
    assert signed_in_as(new_phone) == rui
    assert new_phone.get(f"/matches/{match.pk}/").status_code == 200


def test_a_request_for_a_seat_asking_again_unanswered_leaves_its_card_in_place(match, ana, ze):
    new_phone = browser()
    new_phone.post(f"/join/{match.join_token}/ask/", {"seat": "a2"})
    card = {**HTMX, "HTTP_HX_TARGET": "seat-request"}  # its card's own ask, every few seconds
    assert new_phone.get(f"/join/{match.join_token}/", **card).status_code == 204
    assert "asked for Rui" in text(new_phone.get(f"/join/{match.join_token}/"))

    match.answer_seat_request(ze, match.seat_requests.get().pk, False)

    answered = new_phone.get(f"/join/{match.join_token}/", **card)
    assert answered.status_code == 200
    assert "turned down" in text(answered)


def test_a_guest_tapping_their_freed_seats_name_is_the_same_person_again(
    match, ana, rui, ze, maria
):
    guests(match, ana, rui, ze, maria)
    match.free_seat(ana, "a2")
    new_phone = browser()

    new_phone.post(f"/join/{match.join_token}/", {"seat": "a2"})

    assert signed_in_as(new_phone) == rui
    assert match.seats.get(position="a2").user == rui


def test_someone_new_typing_their_own_name_for_a_freed_seat_is_someone_new(
    match, ana, rui, ze, maria
):
    guests(match, ana, rui, ze, maria)
    match.free_seat(ana, "a2")
    new_phone = browser()

    new_phone.post(f"/join/{match.join_token}/", {"seat": "a2", "name": "Olga"})

    olga = signed_in_as(new_phone)
    assert olga != rui and olga.name == "Olga"


def test_a_registered_account_is_never_taken_over_by_a_seat_link(match, ana, rui):
    seat = match.make_seat_link(ana, "a2")  # Rui has a password: he logs in instead
    new_phone = browser()

    new_phone.post(f"/seat/{match.pk}/a2/{seat.link_token}/")

    assert signed_in_as(new_phone) not in (None, rui)
    assert match.seats.get(position="a2").user == signed_in_as(new_phone)


def test_the_standings_show_a_guest_back_on_a_new_browser_once(match, ana, rui, ze, maria):
    guests(match, ana, rui, ze, maria)
    following = won_and_rematched(match, ana)  # Rui played the first rubber
    seat = following.make_seat_link(ana, "a2")
    browser().post(f"/seat/{following.pk}/a2/{seat.link_token}/")  # his new phone
    play(following, ana, ("b", 4, "sweep"))

    counted = tally(match.night.rubbers())
    assert [player.name for player in counted["players"]].count("Rui") == 1
    players = standings(Match.objects.played_by(ana)).players
    assert [player.name for player in players].count("Rui") == 1


def test_renewing_the_links_shuts_out_a_seat_link_too(match, ana, api_as, olga):
    seat = match.make_seat_link(ana, "b2")
    match.renew_links(ana)

    assert browser().get(f"/seat/{match.pk}/b2/{seat.link_token}/").status_code == 404
    claim = api_as(olga).post(
        f"/api/matches/{match.pk}/seats/b2/claim/", {"token": seat.link_token}, format="json"
    )
    assert claim.status_code == 404
    assert match.seats.get(position="b2").user.name == "Maria"
