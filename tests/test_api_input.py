"""What a client sends that Python's JSON reads but the API must refuse: a lone
surrogate, a key given twice; and answers that stay short whatever was sent.

Each is a 400 with a short message, never a 500, and changes nothing.
"""

import json

import pytest
from django.test import Client

from matches.models import Match, User
from tests.conftest import SEAT_NAMES

from .pages import HTMX
from .test_hostile_input import snapshot

pytestmark = pytest.mark.django_db

# JSON text for a lone surrogate: valid JSON, but no text (nor any answer echoing it).
LONE = "\\ud800"
UNENCODABLE = "The JSON body holds text that is not valid Unicode (a lone surrogate escape)."
CARDS = '{"aces": 3, "sevens": 2, "kings": 1, "jacks": 2, "queens": 1}'
SEATS = json.dumps(SEAT_NAMES)


@pytest.fixture
def open_match(ana):
    """Ana's match with a free seat on each side."""
    return Match.objects.start(ana, SEAT_NAMES, host_seat="a1")


def post(client, path, text):
    return client.post(path, text, content_type="application/json")


# (who, path, JSON text with the lone surrogate somewhere)
SURROGATES = {
    "calculator key": (None, "/api/calculator/", f'{{"{LONE}": 1}}'),
    "calculator key beside points": (None, "/api/calculator/", f'{{"points": 65, "{LONE}": 1}}'),
    "calculator points": (None, "/api/calculator/", f'{{"points": "{LONE}"}}'),
    "calculator every_trick": (
        None, "/api/calculator/", f'{{"points": 120, "every_trick": "{LONE}"}}',
    ),
    "calculator card name": (None, "/api/calculator/", f'{{"cards": {{"{LONE}": 1}}}}'),
    "calculator card count": (None, "/api/calculator/", f'{{"cards": {{"aces": "{LONE}"}}}}'),
    "calculator in a list": (None, "/api/calculator/", f'{{"points": ["{LONE}"]}}'),
    "calculator low half": (None, "/api/calculator/", '{"\\udfff": 1}'),
    "calculator body is the string": (None, "/api/calculator/", f'"{LONE}"'),
    "token key": (None, "/api/auth/token/", f'{{"{LONE}": 1}}'),
    "token username": (None, "/api/auth/token/", f'{{"username": "{LONE}", "password": "x"}}'),
    "token password": (None, "/api/auth/token/", f'{{"username": "ana", "password": "{LONE}"}}'),
    "guest name": (None, "/api/auth/guest/", f'{{"name": "Ana{LONE}"}}'),
    "guest key": (None, "/api/auth/guest/", f'{{"name": "Ana", "{LONE}": 1}}'),
    "start host_seat": ("ana", "/api/matches/", f'{{"seats": {SEATS}, "host_seat": "{LONE}"}}'),
    "start direction": ("ana", "/api/matches/", f'{{"seats": {SEATS}, "direction": "{LONE}"}}'),
    "start first_dealer": (
        "ana", "/api/matches/", f'{{"seats": {SEATS}, "first_dealer": "{LONE}"}}',
    ),
    "start seat name": (
        "ana", "/api/matches/",
        f'{{"seats": {{"a1": "{LONE}", "a2": "Rui", "b1": "Zé", "b2": "Maria"}}}}',
    ),
    "start seat key": ("ana", "/api/matches/", f'{{"seats": {{"{LONE}": "Ana"}}}}'),
    "entry side": (
        "ana", "/api/matches/{match}/entries/", f'{{"deal": 1, "side": "{LONE}", "games": 1}}',
    ),
    "entry key": (
        "ana", "/api/matches/{match}/entries/",
        f'{{"deal": 1, "side": "a", "games": 1, "{LONE}": 1}}',
    ),
    "note side": ("ana", "/api/matches/{match}/notes/", f'{{"side": "{LONE}", "text": "Zé"}}'),
    "note text": ("ana", "/api/matches/{match}/notes/", f'{{"side": "b", "text": "{LONE}"}}'),
    "join token": (
        "olga", "/api/matches/{open}/join/", f'{{"token": "{LONE}", "seat": "b2"}}',
    ),
    "join seat": (
        "olga", "/api/matches/{open}/join/", f'{{"token": "{{token}}", "seat": "{LONE}"}}',
    ),
    "rematch seat": (
        "ana", "/api/matches/{match}/rematch/", f'{{"seats": {{"a1": "{LONE}"}}}}',
    ),
    "undo key": ("ana", "/api/matches/{match}/undo/", f'{{"{LONE}": 1}}'),
}  # fmt: skip


@pytest.mark.parametrize("case", list(SURROGATES))
def test_a_lone_surrogate_anywhere_in_the_body_is_refused(api_as, match, open_match, olga, case):
    who, path, text = SURROGATES[case]
    people = {"ana": match.host, "olga": olga}
    client = api_as(people.get(who))
    path = path.format(match=match.pk, open=open_match.pk)
    text = text.replace("{token}", open_match.join_token)
    before = snapshot()
    response = post(client, path, text)
    assert response.status_code == 400, response.content[:300]
    assert response.json() == {"detail": UNENCODABLE}
    assert snapshot() == before


def test_a_surrogate_pair_is_a_character_like_any_other(api_as):
    """The check refuses half a pair, not the characters beyond the first 65,536."""
    response = post(api_as(), "/api/auth/guest/", '{"name": "T\\u00f3 \\ud83c\\udccf"}')
    assert response.status_code == 201, response.content
    assert response.json()["user"]["name"] == "Tó 🃏"


# Keys given twice ----------------------------------------------------------------------


# (who, path, JSON text with a key given twice, the names the message gives)
TWICE = {
    "points": (None, "/api/calculator/", '{"points": 1, "points": 65}', "points"),
    "points, same value": (None, "/api/calculator/", '{"points": 65, "points": 65}', "points"),
    "a card": (None, "/api/calculator/", f'{{"cards": {CARDS[:-1]}, "aces": 0}}}}', "aces"),
    "guest name": (None, "/api/auth/guest/", '{"name": "Tó", "name": "Ana"}', "name"),
    "log in as another": (
        None, "/api/auth/token/", '{"username": "olga", "password": "x", "username": "ana", '
        '"password": "sueca-na-mesa-42"}', "password, username",
    ),
    "entry": (
        "ana", "/api/matches/{match}/entries/",
        '{"deal": 1, "side": "b", "side": "a", "games": 1, "games": 0}', "games, side",
    ),
    "undo": ("ana", "/api/matches/{match}/undo/", '{"x": 1, "x": 1}', "x"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(TWICE))
def test_a_key_given_twice_is_refused(api_as, match, case):
    who, path, text, names = TWICE[case]
    client = api_as(match.host if who else None)
    before = snapshot()
    response = post(client, path.format(match=match.pk), text)
    assert response.status_code == 400, response.content[:300]
    assert response.json() == {
        "detail": f"The JSON body gives {names} more than once, so nothing was done."
    }
    assert snapshot() == before


def test_many_keys_given_twice_are_named_in_a_short_message(api_as):
    pairs = ", ".join(f'"k{i:05}": 1, "k{i:05}": 2' for i in range(20_000))
    response = post(api_as(), "/api/calculator/", f"{{{pairs}}}")
    assert response.status_code == 400
    assert response.json() == {
        "detail": "The JSON body gives k00000, k00001, k00002 and 19997 others more than once, "
        "so nothing was done."
    }


# Answers stay short ----------------------------------------------------------------------


def test_a_megabyte_of_unknown_fields_gets_a_short_answer(api_as):
    body = {"points": 65, **{f"field-{i:06}": 1 for i in range(70_000)}}
    text = json.dumps(body)
    assert len(text) > 1_000_000
    response = post(api_as(), "/api/calculator/", text)
    assert response.status_code == 400
    assert len(response.content) < 500, len(response.content)
    assert response.json()["detail"] == (
        "There is no field field-000000, field-000001, field-000002 and 69997 others here."
    )


def test_a_long_unknown_field_is_named_by_its_first_forty_characters(api_as):
    response = post(api_as(), "/api/calculator/", json.dumps({"points": 65, "y" * 500_000: 1}))
    assert response.status_code == 400
    assert response.json()["detail"] == f"There is no field {'y' * 40} here."


def test_a_megabyte_in_a_choice_gets_a_short_answer(api_as, match):
    """DRF's own messages echo the value ('"x…" is not a valid choice.'): cut short."""
    body = {"seats": {"a1": "a1", "a2": "x" * 1_000_000, "b1": "b1", "b2": "b2"}}
    response = post(api_as(match.host), f"/api/matches/{match.pk}/rematch/", json.dumps(body))
    assert response.status_code == 400
    assert len(response.content) < 1_000, len(response.content)
    assert response.json()["detail"].startswith('seats.a2: "xxx')


def test_a_field_with_a_hundred_thousand_bad_entries_gets_a_short_answer(api_as, match):
    seats = {f"k{i}": "zz" for i in range(100_000)}
    response = post(
        api_as(match.host), f"/api/matches/{match.pk}/rematch/", json.dumps({"seats": seats})
    )
    assert response.status_code == 400
    assert len(response.content) < 2_000, len(response.content)
    assert response.json()["detail"]


def test_a_page_posting_many_unknown_fields_gets_a_short_message(ana, match):
    client = Client()
    client.force_login(ana)
    body = {"deal": "2", "side": "a", "games": "1"}
    body.update({f"{i:03}{'z' * 900}": "1" for i in range(900)})  # under Django's 1,000 fields
    response = client.post(f"/matches/{match.pk}/entries/", body, **HTMX)
    assert response.status_code == 400
    assert len(response.content) < 1_000, len(response.content)
    z = "z" * 37
    assert f"000{z}, 001{z}, 002{z} and 897 others" in response.content.decode()


# Join links -------------------------------------------------------------------------------


def test_a_wrong_join_token_and_a_missing_match_get_the_same_answer(api_as, open_match, olga):
    """Otherwise a stranger could tell which match ids exist (403 against 404)."""
    client = api_as(olga)
    missing = Match.objects.order_by("pk").last().pk + 1000
    answers = [
        post(client, f"/api/matches/{id_}/join/", json.dumps({"token": token, "seat": "b2"}))
        for id_, token in [
            (open_match.pk, "guess"),
            (missing, "guess"),
            (missing, open_match.join_token),
            (open_match.pk, "ção-€"),
            (open_match.pk, open_match.watch_token),
            (2**63, "guess"),
        ]
    ]
    assert {(answer.status_code, answer.content) for answer in answers} == {
        (404, b'{"detail":"This join link is not valid any more: ask the host for the new one."}')
    }
    assert not open_match.seats.filter(user=olga).exists()


def test_the_right_join_token_still_seats_the_caller(api_as, open_match, olga):
    body = json.dumps({"token": open_match.join_token, "seat": "b2"})
    response = post(api_as(olga), f"/api/matches/{open_match.pk}/join/", body)
    assert response.status_code == 200
    assert open_match.seats.get(position="b2").user == olga


def test_a_page_join_link_with_a_wrong_token_is_the_same_404(olga, open_match):
    client = Client()
    client.force_login(olga)
    for token in ("guess", open_match.watch_token, open_match.join_token + "x"):
        response = client.post(f"/join/{token}/", {"seat": "b2"})
        assert response.status_code == 404
        assert "This join link is not valid any more" in response.content.decode()
    assert not User.objects.filter(display_name="Olga").exclude(pk=olga.pk).exists()


# The schema says what the API does -------------------------------------------------------


def test_every_request_body_in_the_schema_refuses_fields_it_does_not_name(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    components = schema["components"]["schemas"]
    bodies = {name: component for name, component in components.items() if name.endswith("Request")}
    assert len(bodies) > 10

    def closed(component):  # a body in shapes (the calculator's) is closed in each of them
        shapes = [
            components[shape["$ref"].rsplit("/", 1)[-1]] for shape in component.get("oneOf", ())
        ]
        return all(map(closed, shapes)) if shapes else component["additionalProperties"] is False

    assert all(closed(component) for component in bodies.values())


def test_an_empty_filter_is_refused_not_read_as_none(api_as, match, ana):
    response = api_as(ana).get("/api/matches/?until=")
    assert response.status_code == 400
    assert "until" in response.json()["errors"]


def test_a_yes_or_no_is_true_or_false_not_a_number(api_as, match, ana):
    response = api_as(ana).post(
        f"/api/matches/{match.pk}/entries/",
        {"deal": 1, "side": "a", "games": 1, "sweep": 0},
        format="json",
    )
    assert response.status_code == 400
    assert match.deal_list() == []


def test_a_token_is_text_not_a_number(api_as, match, olga):
    response = api_as(olga).post(
        f"/api/matches/{match.pk}/join/", {"token": 12345, "seat": "b1"}, format="json"
    )
    assert response.status_code == 400


def test_an_if_match_that_is_no_etag_is_refused_and_undoes_nothing(api_as, match, ana, ze):
    seen = api_as(ana).get(f"/api/matches/{match.pk}/")["ETag"]
    match.record(ze, deal=1, side="b", games=1)  # Zé enters meanwhile
    unquoted = seen.strip('"')

    refused = api_as(ana).post(
        f"/api/matches/{match.pk}/undo/", {}, format="json", HTTP_IF_MATCH=unquoted
    )
    stale = api_as(ana).post(
        f"/api/matches/{match.pk}/undo/", {}, format="json", HTTP_IF_MATCH=seen
    )

    assert refused.status_code == 400
    assert "If-Match" in refused.json()["detail"]
    assert stale.status_code == 409
    assert [(deal.a, deal.b) for deal in match.deal_list()] == [(0, 1)]
