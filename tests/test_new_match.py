"""Opening a match: four seat names, the host's seat, the first dealer, the direction."""

from django.utils import timezone

from matches.models import Match

from .conftest import SEAT_NAMES
from .pages import browser, text

FORM = {**SEAT_NAMES, "host_seat": "a1", "first_dealer": "a1", "direction": "counterclockwise"}


def test_signing_in_comes_first_and_comes_back(db):
    response = browser().get("/matches/new/")

    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/matches/new/"


def test_a_first_match_prefills_the_hosts_name_and_seat(ana):
    page = text(browser(ana).get("/matches/new/"))

    assert 'name="a1" value="Ana"' in page
    assert '<option value="a1" selected>' in page.split('name="host_seat"')[1]
    assert 'value="counterclockwise" id="id_direction_0" required checked' in page


def test_the_form_is_prefilled_from_the_hosts_previous_match(ana):
    Match.objects.start(
        ana,
        {"a1": "Ana", "a2": "Bia", "b1": "Caio", "b2": "Duda"},
        host_seat="b2",
        direction="clockwise",
    )

    page = text(browser(ana).get("/matches/new/"))

    for name in ("Bia", "Caio", "Duda"):
        assert f'value="{name}"' in page
    assert '<option value="b2" selected>' in page.split('name="host_seat"')[1]
    assert 'value="clockwise" id="id_direction_1" checked' in page.replace(" required", "")


def test_the_host_starts_a_match_and_lands_on_the_sheet(ana):
    response = browser(ana).post(
        "/matches/new/", {**FORM, "first_dealer": "b1", "direction": "clockwise"}
    )

    match = Match.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/matches/{match.pk}/"
    assert match.host == ana
    assert match.seat_of(ana).position == "a1"
    assert (match.first_dealer, match.direction) == ("b1", "clockwise")
    assert {seat.position: seat.name for seat in match.seats.all()} == SEAT_NAMES


def test_the_host_may_only_keep_the_score(ana):
    browser(ana).post("/matches/new/", {**FORM, "host_seat": ""})

    match = Match.objects.get()
    assert match.seat_of(ana) is None
    assert match.is_host(ana)


def test_missing_names_are_refused_and_nothing_is_created(ana):
    response = browser(ana).post("/matches/new/", {**FORM, "b2": "   "})

    assert response.status_code == 400
    assert "errorlist" in text(response)
    assert not Match.objects.exists()


def test_unknown_choices_are_refused(ana):
    response = browser(ana).post("/matches/new/", {**FORM, "first_dealer": "c3", "direction": "up"})

    assert response.status_code == 400
    assert text(response).count('class="errorlist"') == 2
    assert not Match.objects.exists()


def test_a_new_match_opens_a_night_with_the_name_and_place_given(ana):
    response = browser(ana).post(
        "/matches/new/", {**FORM, "night_name": "Sexta no Zé", "place": "Café Império"}
    )

    assert response.status_code == 302
    night = Match.objects.get().night
    assert (night.name, night.place) == ("Sexta no Zé", "Café Império")


def test_without_a_name_the_night_is_named_by_its_date(ana):
    browser(ana).post("/matches/new/", FORM)

    assert Match.objects.get().night.name == timezone.localdate().strftime("%Y-%m-%d")
