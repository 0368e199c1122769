"""Names as the table typed them: trimmed, nothing invisible or direction-changing,
something to read, and shown isolated from the words around them."""

import pytest

from matches.models import Match, User

from .conftest import SEAT_NAMES
from .pages import browser, markup

REVERSED = "Ana\u202egnp.exe\u202c"  # a right-to-left override hiding in a name


@pytest.mark.parametrize("name", ["\u200b", "\u200b\u200d\u2060", " \u2066\u2069 ", "\u0301"])
def test_a_name_with_nothing_to_read_is_refused_on_the_page_and_in_the_api(name, api_as, db):
    page = browser().post("/guest/", {"name": name})
    api = api_as().post("/api/auth/guest/", {"name": name}, format="json")
    assert page.status_code == api.status_code == 400
    assert not User.objects.exists()


def test_direction_changing_characters_are_removed(api_as, db):
    body = api_as().post("/api/auth/guest/", {"name": REVERSED}, format="json").json()
    assert body["user"]["name"] == "Anagnp.exe"
    browser().post("/guest/", {"name": "Zé\u200b\u200e "})
    assert User.objects.filter(display_name="Zé").exists()


def test_seat_names_are_cleaned_the_same_way(ana):
    match = Match.objects.start(ana, {**SEAT_NAMES, "b1": REVERSED}, host_seat="a1")
    assert match.seats.get(position="b1").name == "Anagnp.exe"


def test_names_are_shown_isolated_from_the_sentence_around_them(match, ana, ze):
    match.record(ze, deal=1, side="b", games=1)
    page = markup(browser(ana).get(f"/matches/{match.pk}/"))
    assert "Undo <bdi>Zé</bdi>&#x27;s 1" in page or "Undo <bdi>Zé</bdi>'s 1" in page
    assert '<span class="by"><bdi>Zé</bdi></span>' in page
    assert "<bdi>Ana</bdi> deals" in page or "deals, <bdi>" in page
