"""Joining by link: a free seat with a name, for a guest or a signed-in player."""

from matches.models import Match, User

from .conftest import SEAT_NAMES
from .pages import HTMX, browser, text


def open_match(host):
    """Ana hosts from a1; the other three seats are free."""
    return Match.objects.start(host, SEAT_NAMES, host_seat="a1")


def test_the_link_shows_the_free_seats(ana):
    match = open_match(ana)

    response = browser().get(f"/join/{match.join_token}/")

    assert response.status_code == 200
    page = text(response)
    # One big button a free seat, with the name the host typed and its side.
    assert '<span>Rui</span><span class="hint">Side A · take this seat' in page
    assert '<span>Zé</span><span class="hint">Side B · take this seat' in page
    for name in ("Rui", "Zé", "Maria"):
        assert f"{name} · Side" in page
    assert "<span>Ana</span>" not in page
    assert 'value="a1" id="id_seat' not in page
    assert "Your name at this table" in page


def test_a_newcomer_takes_a_seat_with_just_a_name(ana):
    match = open_match(ana)
    client = browser()

    response = client.post(f"/join/{match.join_token}/", {"seat": "b1", "name": " Zé  Carlos "})

    assert response.status_code == 302
    assert response["Location"] == f"/matches/{match.pk}/"
    seat = match.seats.get(position="b1")
    assert seat.name == "Zé Carlos"
    assert seat.user.is_guest
    assert seat.user.display_name == "Zé Carlos"
    # The guest is signed in and sees the sheet as Nós.
    assert "Games for Nós" in text(client.get(response["Location"]))


def test_a_newcomer_takes_a_seat_in_one_tap_under_the_name_the_host_typed(ana):
    match = open_match(ana)

    response = browser().post(f"/join/{match.join_token}/", {"seat": "b1"})

    assert response.status_code == 302
    seat = match.seats.get(position="b1")
    assert seat.name == "Zé"
    assert (seat.user.is_guest, seat.user.display_name) == (True, "Zé")


def test_a_blank_name_is_the_name_the_host_typed(ana):
    match = open_match(ana)

    response = browser().post(f"/join/{match.join_token}/", {"seat": "b1", "name": "   "})

    assert response.status_code == 302
    assert match.seats.get(position="b1").user.display_name == "Zé"


def test_a_name_with_nothing_to_read_is_refused(ana):
    match = open_match(ana)

    response = browser().post(f"/join/{match.join_token}/", {"seat": "b1", "name": "\u200b"})

    assert response.status_code == 400
    assert "Your name can&#x27;t be empty." in text(response)
    assert not User.objects.filter(is_guest=True).exists()
    assert match.seats.get(position="b1").user is None


def test_a_signed_in_player_takes_a_seat_keeping_its_name(ana, ze):
    match = open_match(ana)

    response = browser(ze).post(f"/join/{match.join_token}/", {"seat": "b1"})

    assert response.status_code == 302
    seat = match.seats.get(position="b1")
    assert (seat.user, seat.name) == (ze, "Zé")


def test_a_signed_in_player_may_rename_the_seat(ana, ze):
    match = open_match(ana)

    browser(ze).post(f"/join/{match.join_token}/", {"seat": "b1", "name": "Zé Manel"})

    assert match.seats.get(position="b1").name == "Zé Manel"


def test_a_taken_seat_is_refused_and_no_guest_is_left_behind(ana, ze):
    match = open_match(ana)
    match.join(ze, token=match.join_token, position="b1")

    response = browser().post(f"/join/{match.join_token}/", {"seat": "b1", "name": "Olga"})

    # The page as it is now, saying so, with the name they typed still there.
    assert response.status_code == 409
    page = text(response)
    assert "taken by Zé" in page
    assert 'value="Olga"' in page
    assert 'value="b1" id="id_seat' not in page
    assert not User.objects.filter(is_guest=True).exists()
    assert match.seats.get(position="b1").user == ze


def test_a_taken_seat_with_htmx_is_a_message(ana, ze, olga):
    match = open_match(ana)
    match.join(ze, token=match.join_token, position="b1")

    response = browser(olga).post(
        f"/join/{match.join_token}/", {"seat": "b1", "name": "Olga F."}, **HTMX
    )

    # htmx swaps the page's #join for this one (hx-select): the message, the name kept.
    assert response.status_code == 409
    page = text(response)
    assert '<div id="join">' in page
    assert "taken by Zé" in page
    assert 'value="Olga F."' in page


def test_joining_with_htmx_redirects_the_browser(ana, olga):
    match = open_match(ana)

    response = browser(olga).post(f"/join/{match.join_token}/", {"seat": "b2"}, **HTMX)

    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/matches/{match.pk}/"


def test_a_seat_that_does_not_exist_is_refused(ana, olga):
    match = open_match(ana)

    response = browser(olga).post(f"/join/{match.join_token}/", {"seat": "c9"})

    assert response.status_code == 400
    assert "Pick one of the four seats." in text(response)
    assert match.seats.get(position="b1").user is None


def test_a_member_opening_the_link_goes_to_the_sheet(match, ze):
    response = browser(ze).get(f"/join/{match.join_token}/")

    assert response.status_code == 302
    assert response["Location"] == f"/matches/{match.pk}/"


def test_a_full_table_says_so(match, olga):
    response = browser(olga).get(f"/join/{match.join_token}/")

    assert response.status_code == 200
    assert "All four seats are taken" in text(response)


def test_an_old_or_made_up_link_is_a_404(ana, olga):
    match = open_match(ana)
    old = match.join_token
    match.renew_links(ana)

    for token in (old, "made-up"):
        response = browser(olga).get(f"/join/{token}/")
        assert response.status_code == 404
        assert "not valid any more" in text(response)


def test_a_won_match_takes_no_one(ana, olga):
    match = open_match(ana)
    match.record(ana, deal=1, side="a", games=4, sweep=True)

    response = browser(olga).post(f"/join/{match.join_token}/", {"seat": "b1"})

    assert response.status_code == 409
    assert "This rubber is over" in text(response)
    assert match.seats.get(position="b1").user is None


def test_the_host_without_a_seat_may_take_one(ana):
    match = Match.objects.start(ana, SEAT_NAMES, host_seat=None)

    response = browser(ana).post(f"/join/{match.join_token}/", {"seat": "a1"})

    assert response.status_code == 302
    assert match.seats.get(position="a1").user == ana


def test_a_newcomer_can_log_in_instead_and_come_back(ana):
    match = open_match(ana)

    page = text(browser().get(f"/join/{match.join_token}/"))

    assert f'href="/accounts/login/?next=/join/{match.join_token}/"' in page
