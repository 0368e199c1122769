"""One reading, many renderings: the pages and the API show the same names and
refuse the same bad input, and say the same refusals, in the same words."""

from html import unescape

import pytest

from matches.models import Match, User

from .conftest import SEAT_NAMES, make_user
from .pages import HTMX, browser, text


def test_a_seat_name_is_the_name_the_sheet_shows_everywhere(ana, api_as):
    jose = make_user("jose", "José")
    match = Match.objects.start(ana, {**SEAT_NAMES, "b1": "Zé"}, host_seat="a1")
    match.join(jose, token=match.join_token, position="b1")
    match.record(jose, deal=1, side="b", games=1)

    page = text(browser(ana).get(f"/matches/{match.pk}/"))
    body = api_as(ana).get(f"/api/matches/{match.pk}/").json()

    assert '<span class="cell">1</span><span class="by">Zé</span>' in page
    assert "José" not in page
    assert body["deals"][0]["b_by"] == "Zé"
    # The host may undo.
    assert body["undo"] == {"deal": 1, "side": "b", "games": 1, "redeal": False, "by": "Zé"}
    assert "Undo Zé's 1 for Eles in deal 1" in page


# Each row: what is sent, the page that takes it, the API call that takes it.
ENTRY = {"deal": "1", "side": "a", "games": "1"}
CORRECTION = {"a": "1", "b": "0"}
NOTE = {"side": "b", "text": "revoked"}
START = {"a1": "Ana", "a2": "Rui", "b1": "Zé", "b2": "Maria", "host_seat": "a1",
         "first_dealer": "a1", "direction": "counterclockwise"}  # fmt: skip
CASES = [
    ("entry", "deal", "two"),
    ("entry", "deal", "0"),
    ("entry", "side", "c"),
    ("entry", "games", "two"),
    ("entry", "games", "-1"),
    ("entry", "games", "1.5"),
    ("entry", "sweep", "maybe"),
    ("correction", "a", "two"),
    ("correction", "b", "-3"),
    ("correction", "sweep", "maybe"),
    ("note", "side", "z"),
    ("note", "deal", "two"),
    ("note", "text", "   "),
    ("guest", "name", "   "),
    ("guest", "name", "x" * 41),
    ("join", "seat", "c9"),
    ("join", "name", "x" * 41),
    ("start", "a1", "   "),
    ("start", "b2", "x" * 41),
    ("start", "host_seat", "c1"),
    ("start", "first_dealer", "z9"),
    ("start", "direction", "sideways"),
    ("start", "night_name", "x" * 81),
    ("start", "place", "x" * 81),
    ("calculator", "points", "two"),
    ("calculator", "points", "1"),
    ("calculator", "points", "121"),
    ("calculator", "aces", "5"),
    ("calculator", "every_trick", "maybe"),
]


def page_message(response):
    """What the page says: the refusal swapped in, or the form's error."""
    assert 400 <= response.status_code < 500, response.status_code
    return unescape(text(response))


@pytest.mark.parametrize(("action", "field", "value"), CASES)
def test_the_same_bad_input_gets_the_same_message_on_the_page_and_in_the_api(
    action, field, value, match, ana, api_as, db
):
    olga = make_user("olga", "Olga")
    spare = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    match.record(ana, deal=1, side="a", games=0)
    match.record(ana, deal=1, side="b", games=1)
    base = f"/matches/{match.pk}/"
    if action == "entry":
        data = {**ENTRY, "deal": "2", field: value}
        page = browser(ana).post(f"{base}entries/", data, **HTMX)
        api = api_as(ana).post(f"/api{base}entries/", data, format="json")
    elif action == "correction":
        data = {**CORRECTION, field: value}
        page = browser(ana).post(f"{base}deals/1/", data, **HTMX)
        api = api_as(ana).put(f"/api{base}deals/1/", data, format="json")
    elif action == "note":
        data = {**NOTE, field: value}
        page = browser(ana).post(f"{base}notes/", data, **HTMX)
        api = api_as(ana).post(f"/api{base}notes/", data, format="json")
    elif action == "guest":
        page = browser().post("/guest/", {"name": value})
        api = api_as().post("/api/auth/guest/", {"name": value}, format="json")
    elif action == "join":
        data = {"seat": "b1", field: value}
        page = browser(olga).post(f"/join/{spare.join_token}/", data)
        api = api_as(olga).post(
            f"/api/matches/{spare.pk}/join/",
            {**data, "token": spare.join_token},
            format="json",
        )
    elif action == "start":
        page = browser(ana).post("/matches/new/", {**START, field: value})
        seats = {position: START[position] for position in ("a1", "a2", "b1", "b2")}
        body = {"seats": seats, "host_seat": "a1", "direction": "counterclockwise"}
        body["first_dealer"] = "a1"
        if field in seats:
            body["seats"][field] = value
        else:
            body[field] = value
        api = api_as(ana).post("/api/matches/", body, format="json")
    else:
        data = {"points": "65", field: value} if field != "points" else {field: value}
        if field == "aces":
            data = {"aces": value}
        page = browser(ana).post(f"{base}calculator/", data, **HTMX)
        body = dict(data)
        if field == "aces":
            body = {"cards": {"aces": value}}
        api = api_as().post("/api/calculator/", body, format="json")

    assert api.status_code == 400, api.content
    detail = api.json()["detail"]
    assert detail in page_message(page)
    assert User.objects.filter(is_guest=True).count() == 0


# Each refusal: what leads to it, then how a page and the API each meet it.


def a_dead_watch_link(match, ana, olga, api):
    old = match.watch_token
    match.renew_links(ana)
    return (
        lambda: browser().get(f"/watch/{old}/"),
        lambda: api().get(f"/api/watch/{old}/"),
    )


def a_dead_join_link(match, ana, olga, api):
    old = match.join_token
    match.renew_links(ana)
    body = {"token": old, "seat": "b1"}
    return (
        lambda: browser(olga).get(f"/join/{old}/"),
        lambda: api(olga).post(f"/api/matches/{match.pk}/join/", body, format="json"),
    )


def a_dead_link_for_a_seat(match, ana, olga, api):
    body = {"token": "not-the-token"}
    return (
        lambda: browser(olga).get(f"/seat/{match.pk}/a2/not-the-token/"),
        lambda: api(olga).post(f"/api/matches/{match.pk}/seats/a2/claim/", body, format="json"),
    )


def a_missing_match(match, ana, olga, api):
    return (
        lambda: browser(ana).get("/matches/999999/"),
        lambda: api(ana).get("/api/matches/999999/"),
    )


def someone_elses_match(match, ana, olga, api):
    return (
        lambda: browser(olga).get(f"/matches/{match.pk}/"),
        lambda: api(olga).get(f"/api/matches/{match.pk}/"),
    )


def a_missing_night(match, ana, olga, api):
    return (
        lambda: browser(ana).get("/nights/999999/"),
        lambda: api(ana).get("/api/nights/999999/"),
    )


def an_undo_in_a_closed_rubber(match, ana, olga, api):
    """Once the next rubber has started, nothing in this one is undone."""
    match.record(ana, deal=1, side="a", games=4, sweep=True)
    match.rematch(ana)
    return (
        lambda: browser(ana).post(f"/matches/{match.pk}/undo/", {}, **HTMX),
        lambda: api(ana).post(f"/api/matches/{match.pk}/undo/", {}, format="json"),
    )


REFUSALS = [
    a_dead_watch_link,
    a_dead_join_link,
    a_dead_link_for_a_seat,
    a_missing_match,
    someone_elses_match,
    a_missing_night,
    an_undo_in_a_closed_rubber,
]


@pytest.mark.parametrize("refusal", REFUSALS, ids=lambda refusal: refusal.__name__)
def test_the_same_refusal_is_said_in_the_same_words_on_the_page_and_in_the_api(
    refusal, match, ana, api_as, db
):
    olga = make_user("olga", "Olga")
    on_the_page, in_the_api = refusal(match, ana, olga, api_as)
    version = Match.objects.get(pk=match.pk).version

    page = on_the_page()
    api = in_the_api()

    assert api.status_code == page.status_code, api.content
    assert api.json()["detail"] in page_message(page)
    assert Match.objects.get(pk=match.pk).version == version
