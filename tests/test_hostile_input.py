"""Hostile input, table-driven, over every endpoint of the API and every form of the pages.

Each case starts from a request the server accepts and spoils one thing: a field
gets a value it must refuse (negative, huge, 1e309, NaN, text, unicode digits,
10 kB, a NUL, a list, an object, null, a boolean), loses a required field, gains
one it does not know, or the whole body is not what it should be. Then: another
match's ids, forged and old join tokens, and a POST without its CSRF token.

Every one of them must get a 4xx with a message, and leave the database exactly
as it was (a snapshot of every row before and after).
"""

import copy
import json
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from django.apps import apps
from django.test import Client
from django.urls import resolve
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from matches.models import Match, User

from .conftest import SEAT_NAMES
from .pages import HTMX, messages_of, text

LONG = "x" * 10_000


class Raw(str):
    """JSON text sent as it is: 1e309 (an infinity to Python) and NaN are not JSON values."""


NUMBERS = [
    -1, -(10**30), 10**30, 2**63, 2**64 + 1, Raw("1e309"), Raw("-1e309"), Raw("NaN"),
    Raw("Infinity"), 1.5, "1.5", "abc", "", " ", "1e3", "0x10", "１２３４５", "½", "三",
    LONG, "9" * 5000, "1\x00", [], [1], {}, {"value": 1}, None, True, False, Raw('"\\ud800"'),
]  # fmt: skip
# Where a number has a default, null asks for it (a note's deal): the rest still apply.
NUMBERS_OR_NULL = [value for value in NUMBERS if value is not None]
CHOICES = ["c", "", " ", "A", "a ", "ａ", LONG, "a\x00", 1, 0, [], ["a"], {}, None, True, 1.5,
           Raw('"\\ud800"'), Raw('"a\\udfff"'), ["\ud800"], {"\ud800": "a1"}]  # fmt: skip
CHOICES_OR_NULL = [value for value in CHOICES if value is not None]
TEXTS = [LONG, "\x00", "Ana\x00", Raw('"\\ud800"'), [], ["Ana"], {}, {"x": 1}, None, True]
BOOLS = ["maybe", 2, -1, 1.5, LONG, [], {}, None, "\x00", Raw("NaN"), Raw('"\\ud800"')]
OBJECTS = ["x", 1, [], ["a1"], True, LONG, {"\ud800": "x"}, {"a1": "\ud800"}]
BODIES = [Raw("[]"), Raw('"text"'), Raw("1"), Raw("null"), Raw("{"), Raw('{"a": }'),
          Raw("[" * 100_000 + "]" * 100_000), Raw("\x00"), Raw('{"x": 1e999999}')]  # fmt: skip


def encode(body):
    """JSON text for a body that may hold Raw pieces."""
    if isinstance(body, Raw):
        return str(body)
    marks = {}

    def mark(value):
        if isinstance(value, Raw):
            marks[f"@@raw{len(marks)}@@"] = str(value)
            return f"@@raw{len(marks) - 1}@@"
        if isinstance(value, dict):
            return {key: mark(inner) for key, inner in value.items()}
        if isinstance(value, list):
            return [mark(inner) for inner in value]
        return value

    text = json.dumps(mark(body))
    for placeholder, raw in marks.items():
        text = text.replace(f'"{placeholder}"', raw)
    return text


def spoil(body, path, value):
    """A copy of the body with the field at ``path`` ("seats.a1") set to value, or
    removed when value is MISSING."""
    body = copy.deepcopy(body)
    *outer, last = path.split(".")
    inner = body
    for key in outer:
        inner = inner[key]
    if value is MISSING:
        del inner[last]
    else:
        inner[last] = value
    return body


MISSING = object()


# The database, row by row -------------------------------------------------------------


def snapshot():
    """Every row the app keeps (the session table aside), field by field."""
    rows = {}
    models = [*apps.get_app_config("matches").get_models(), Token]
    for model in models:
        values = model.objects.order_by("pk").values()
        rows[model._meta.label] = [
            {key: value for key, value in row.items() if key != "last_login"} for row in values
        ]
    return rows


# The world the requests land in ------------------------------------------------------


@pytest.fixture
def world(match, ana, rui, ze, maria, olga):
    """Ana's match in play (deal 1 won by side a, a note by Zé on it), another match of
    Ana's three deals long with a note, an ended one ready for a rematch, and one with
    a free seat for Olga to join."""
    match.record(rui, deal=1, side="a", games=1)
    note = match.add_note(ze, side="a", text="Rui revoked")
    other = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    for number in (1, 2, 3):
        other.record(ana, deal=number, side="b", games=0)
        other.record(ana, deal=number, side="a", games=0)
    other_note = other.add_note(ana, side="b", text="Somebody revoked")
    ended = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    ended.end(ana)
    open_ = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    old_token = open_.join_token
    open_.renew_links(ana)
    open_.refresh_from_db()
    match.refresh_from_db()
    guest = User.create_guest("Bia")
    return {
        "match": match,
        "note": note,
        "other": other,
        "other_note": other_note,
        "ended": ended,
        "open": open_,
        "old_token": old_token,
        "people": {"ana": ana, "rui": rui, "ze": ze, "maria": maria, "olga": olga, "guest": guest},
    }


# The API --------------------------------------------------------------------------------

# name: (who, method, path, a body the server accepts, {field: values to refuse}, required)
API = {
    "guest": (
        None, "post", "/api/auth/guest/", {"name": "Tó"}, {"name": TEXTS}, ["name"],
    ),
    "token": (
        None, "post", "/api/auth/token/", {"username": "ana", "password": "sueca-na-mesa-42"},
        {"username": TEXTS, "password": TEXTS}, ["username", "password"],
    ),
    "calculator from points": (
        None, "post", "/api/calculator/", {"points": 65, "every_trick": False},
        {"points": NUMBERS, "every_trick": BOOLS}, ["points"],
    ),
    "calculator from cards": (
        None, "post", "/api/calculator/",
        {"cards": {"aces": 3, "sevens": 2, "kings": 1, "jacks": 2, "queens": 1}},
        {"cards": OBJECTS, **{f"cards.{rank}": NUMBERS for rank in
                              ("aces", "sevens", "kings", "jacks", "queens")}},
        ["cards"],
    ),
    "start a match": (
        "ana", "post", "/api/matches/",
        {"seats": dict(SEAT_NAMES), "host_seat": "a1", "direction": "clockwise",
         "first_dealer": "b1", "night": None},
        {"seats": OBJECTS, **{f"seats.{seat}": TEXTS for seat in SEAT_NAMES},
         "host_seat": CHOICES_OR_NULL, "direction": CHOICES, "first_dealer": CHOICES,
         "night": NUMBERS_OR_NULL},
        ["seats", "seats.a1", "seats.b2"],
    ),
    "join": (
        "olga", "post", "/api/matches/{open}/join/", {"token": "{open_token}", "seat": "b2"},
        {"token": TEXTS, "seat": CHOICES, "name": TEXTS}, ["token", "seat"],
    ),
    "enter games": (
        "ana", "post", "/api/matches/{match}/entries/",
        {"deal": 2, "side": "a", "games": 1, "sweep": False},
        {"deal": NUMBERS, "side": CHOICES, "games": NUMBERS, "sweep": BOOLS},
        ["deal", "side", "games"],
    ),
    "correct a deal": (
        "ana", "put", "/api/matches/{match}/deals/1/", {"a": 2, "b": 0, "sweep": False},
        {"a": NUMBERS, "b": NUMBERS, "sweep": BOOLS}, ["a", "b"],
    ),
    "note a revoke": (
        "ana", "post", "/api/matches/{match}/notes/", {"side": "b", "deal": 1, "text": "Zé"},
        {"side": CHOICES, "deal": NUMBERS_OR_NULL, "text": TEXTS}, ["side", "text"],
    ),
    "rematch": (
        "ana", "post", "/api/matches/{ended}/rematch/",
        {"seats": {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"}},
        {"seats": OBJECTS, "seats.a2": CHOICES},
        [],
    ),
}  # fmt: skip
# Endpoints without a body: only the body itself can be wrong (and extra fields).
BODILESS = {
    "undo": ("ana", "post", "/api/matches/{match}/undo/"),
    "end": ("ana", "post", "/api/matches/{match}/end/"),
    "renew links": ("ana", "post", "/api/matches/{match}/links/"),
}


def fill(template, world):
    if not isinstance(template, str):
        return template
    return template.format(
        match=world["match"].pk,
        other=world["other"].pk,
        ended=world["ended"].pk,
        open=world["open"].pk,
        open_token=world["open"].join_token,
        old_token=world["old_token"],
        note=world["note"].pk,
        other_note=world["other_note"].pk,
    )


def fill_body(body, world):
    if isinstance(body, dict):
        return {key: fill_body(value, world) for key, value in body.items()}
    return fill(body, world)


def api_client(world, who):
    client = APIClient()
    if who is not None:
        client.credentials(
            HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=world['people'][who])[0]}"
        )
    return client


def send(client, method, path, body):
    data = encode(body) if body is not None else None
    return getattr(client, method)(path, data, content_type="application/json")


class Refusals:
    """Collects what went wrong across a table, to report every case at once."""

    def __init__(self):
        self.failures = []

    def check_api(self, case, response, before):
        status = response.status_code
        if not 400 <= status < 500:
            self.failures.append(f"{case}: {status} {response.content[:200]!r}")
            return
        try:
            detail = response.json().get("detail")
        except (ValueError, AttributeError):
            detail = None
        if not isinstance(detail, str) or not detail.strip():
            self.failures.append(f"{case}: {status} without a message: {response.content[:200]!r}")
        if snapshot() != before:
            self.failures.append(f"{case}: {status} yet the database changed")

    def assert_none(self):
        assert not self.failures, "\n".join(self.failures[:40])


def test_the_accepted_requests_are_accepted(world):
    """The table's starting points really are accepted, so each spoiled copy tests one thing."""
    for name, (who, method, path, body, _fields, _required) in API.items():
        response = send(api_client(world, who), method, fill(path, world), fill_body(body, world))
        assert response.status_code in (200, 201), (name, response.content[:300])


@pytest.mark.parametrize("name", list(API))
def test_every_field_refuses_what_it_must(world, name):
    who, method, path, body, fields, _required = API[name]
    client, path, body = api_client(world, who), fill(path, world), fill_body(body, world)
    before = snapshot()
    refusals = Refusals()
    for field, values in fields.items():
        for value in values:
            response = send(client, method, path, spoil(body, field, value))
            refusals.check_api(f"{name} {field}={value!r:.40}", response, before)
    refusals.assert_none()


@pytest.mark.parametrize("name", list(API))
def test_missing_and_extra_fields_are_refused(world, name):
    who, method, path, body, _fields, required = API[name]
    client, path, body = api_client(world, who), fill(path, world), fill_body(body, world)
    before = snapshot()
    refusals = Refusals()
    for field in required:
        response = send(client, method, path, spoil(body, field, MISSING))
        refusals.check_api(f"{name} without {field}", response, before)
    for extra in ({"games_a": 4}, {"host": "olga"}, {"": 1}, {"x" * 1000: "y"}, {"\ud800": 1}):
        response = send(client, method, path, {**body, **extra})
        refusals.check_api(f"{name} with {extra!r:.40}", response, before)
    refusals.assert_none()


@pytest.mark.parametrize("name", list(API))
def test_a_field_given_twice_is_refused(world, name):
    """As the pages refuse a field posted twice: the JSON object holds it once only."""
    who, method, path, body, _fields, _required = API[name]
    client, path, body = api_client(world, who), fill(path, world), fill_body(body, world)
    before = snapshot()
    refusals = Refusals()
    for field in body:
        text = encode(body)
        twice = f"{text[:-1]}, {json.dumps(field)}: {json.dumps(body[field])}}}"
        response = getattr(client, method)(path, twice, content_type="application/json")
        refusals.check_api(f"{name} with {field} twice", response, before)
    refusals.assert_none()


@pytest.mark.parametrize("name", [*API, *BODILESS])
def test_a_body_that_is_not_an_object_is_refused(world, name):
    who, method, path = (API.get(name) or BODILESS[name])[:3]
    client, path = api_client(world, who), fill(path, world)
    before = snapshot()
    refusals = Refusals()
    for body in [*BODIES, {"extra": 1}] if name in BODILESS else BODIES:
        response = send(client, method, path, body)
        refusals.check_api(f"{name} body {str(body)[:40]!r}", response, before)
    response = getattr(client, method)(path, "name=Ana", content_type="text/plain")
    refusals.check_api(f"{name} as text/plain", response, before)
    response = getattr(client, method)(
        path, b'{"name": "' + b"x" * 3_000_000 + b'"}', content_type="application/json"
    )
    refusals.check_api(f"{name} with a 3 MB body", response, before)
    refusals.assert_none()


def test_ids_in_paths_and_queries_that_name_nothing_are_refused(world):
    client = api_client(world, "ana")
    before = snapshot()
    refusals = Refusals()
    match = world["match"].pk
    for id_ in ("0", "-1", str(10**30), str(2**63), "9" * 5000, "1e3", "x", "%00", "１"):
        for method, path in (
            ("get", f"/api/matches/{id_}/"),
            ("post", f"/api/matches/{id_}/undo/"),
            ("get", f"/api/nights/{id_}/"),
            ("put", f"/api/matches/{match}/deals/{id_}/"),
            ("delete", f"/api/matches/{match}/notes/{id_}/"),
            ("get", f"/api/watch/{id_}/"),
        ):
            response = send(client, method, path, {"a": 0, "b": 2} if method == "put" else None)
            refusals.check_api(f"{method} {path[:60]}", response, before)
    for query in ("status=won!", "night=-1", f"night={10**30}", "night=NaN", "page=0",
                  f"page={10**30}", "page=abc", "night=１", f"status={LONG}"):  # fmt: skip
        response = client.get(f"/api/matches/?{query}")
        refusals.check_api(f"list ?{query[:40]}", response, before)
    refusals.assert_none()


def test_another_matchs_ids_are_refused(world):
    client = api_client(world, "ana")
    before = snapshot()
    refusals = Refusals()
    match, other = world["match"], world["other"]
    cases = [
        ("delete", f"/api/matches/{match.pk}/notes/{world['other_note'].pk}/", None),
        ("put", f"/api/matches/{match.pk}/deals/3/", {"a": 0, "b": 2}),  # other's deal 3
        ("post", f"/api/matches/{match.pk}/entries/", {"deal": 4, "side": "a", "games": 1}),
        ("post", f"/api/matches/{match.pk}/notes/", {"side": "a", "deal": 3, "text": "x"}),
        ("post", f"/api/matches/{other.pk}/join/", {"token": match.join_token, "seat": "b2"}),
    ]
    for method, path, body in cases:
        refusals.check_api(f"{method} {path} {body}", send(client, method, path, body), before)
    refusals.assert_none()


def test_forged_and_old_join_and_watch_tokens_are_refused(world):
    client = api_client(world, "olga")
    before = snapshot()
    refusals = Refusals()
    open_ = world["open"]
    for token in (world["old_token"], "x" * 32, open_.watch_token, open_.join_token[:-1],
                  open_.join_token + "x", open_.join_token.upper(), "", LONG, "ação",
                  "\x00"):  # fmt: skip
        path = f"/api/matches/{open_.pk}/join/"
        response = send(client, "post", path, {"token": token, "seat": "b2"})
        refusals.check_api(f"join with {token!r:.40}", response, before)
    for token in (open_.join_token, world["old_token"], "x" * 43, LONG):
        response = client.get(f"/api/watch/{token}/")
        refusals.check_api(f"watch with {token!r:.40}", response, before)
    refusals.assert_none()


def test_session_posts_to_the_api_need_the_csrf_token(world):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(world["people"]["ana"])
    before = snapshot()
    refusals = Refusals()
    for name, (who, method, path, body, _fields, _required) in API.items():
        if who is None:
            continue  # no session involved, so nothing to forge
        response = send(client, method, fill(path, world), fill_body(body, world))
        refusals.check_api(f"{name} without CSRF", response, before)
    for _who, method, path in BODILESS.values():
        refusals.check_api(
            f"{path} without CSRF", send(client, method, fill(path, world), {}), before
        )
    refusals.assert_none()


# The pages ------------------------------------------------------------------------------

FORM_NUMBERS = [
    "-1", str(-(10**30)), str(10**30), str(2**63), "1e309", "-1e309", "NaN", "nan", "inf",
    "Infinity", "1.5", "abc", " ", "1e3", "0x10", "１２３４５", "٣", "½", "三", LONG, "9" * 5000,
    "1\x00", ["1", "2"],
]  # fmt: skip
# Where a blank field asks for the default (a note's deal, a card count), blanks are fine.
BLANK_IS_DEFAULT = [value for value in FORM_NUMBERS if value != " "]
FORM_CHOICES = ["c", "", " ", "A", "a ", "ａ", LONG, "a\x00", "1", "None", ["a", "b"]]
FORM_TEXTS = [LONG, "\x00", "Ana\x00", "   ", ["Ana", "Rui"]]
FORM_BOOLS = ["maybe", "2", "-1", LONG, "\x00", ["on", "off"]]
PASSWORD = "a-long-sueca-phrase-9"

# name: (who, path, a body the page accepts, {field: values to refuse}, required fields)
PAGES = {
    "guest": (None, "/guest/", {"name": "Tó"}, {"name": FORM_TEXTS}, ["name"]),
    "sign up": (
        None, "/accounts/signup/",
        {"username": "bia", "display_name": "Bia", "password1": PASSWORD, "password2": PASSWORD},
        {"username": [LONG, "\x00", "", "bia bia", ["bia", "tó"]],
         "display_name": FORM_TEXTS, "password2": ["", "other", "\x00"]},
        ["username", "display_name", "password1", "password2"],
    ),
    "keep the account": (
        "guest", "/accounts/keep/",
        {"username": "bia-keeps", "new_password1": PASSWORD, "new_password2": PASSWORD},
        {"username": [LONG, "\x00", "", "ANA", "bia bia"], "new_password2": ["", "other"]},
        ["username", "new_password1", "new_password2"],
    ),
    "log in": (
        None, "/accounts/login/", {"username": "ana", "password": "sueca-na-mesa-42"},
        {"username": [LONG, "\x00", "", "ANA ", ["ana", "rui"]],
         "password": [LONG, "", "\x00", ["sueca-na-mesa-42", "x"]]},
        ["username", "password"],
    ),
    "new match": (
        "ana", "/matches/new/",
        {**SEAT_NAMES, "host_seat": "a1", "direction": "clockwise", "first_dealer": "b1"},
        {"a1": FORM_TEXTS, "b2": FORM_TEXTS, "host_seat": [c for c in FORM_CHOICES if c != ""],
         "direction": FORM_CHOICES, "first_dealer": FORM_CHOICES},
        ["a1", "a2", "b1", "b2", "direction", "first_dealer"],
    ),
    "join": (
        "olga", "/join/{open_token}/", {"seat": "b2", "name": "Olga"},
        {"seat": FORM_CHOICES, "name": [LONG, "\x00", ["Olga", "Ana"]]}, ["seat"],
    ),
    # A newcomer's name may be left empty (or blank): they join under the name the
    # host typed for the seat, as a member does, so only the seat is required.
    "join as a newcomer": (
        None, "/join/{open_token}/", {"seat": "a2", "name": "Tó"},
        {"seat": FORM_CHOICES, "name": [v for v in FORM_TEXTS if v != "   "]}, ["seat"],
    ),
    "enter games": (
        "ana", "/matches/{match}/entries/", {"deal": "2", "side": "a", "games": "1"},
        {"deal": FORM_NUMBERS, "side": FORM_CHOICES, "games": FORM_NUMBERS,
         "sweep": FORM_BOOLS, "extra": FORM_NUMBERS},
        ["deal", "side", "games"],
    ),
    "correct a deal": (
        "ana", "/matches/{match}/deals/1/", {"a": "2", "b": "0"},
        {"a": FORM_NUMBERS, "b": FORM_NUMBERS, "sweep": FORM_BOOLS}, ["a", "b"],
    ),
    "note a revoke": (
        "ana", "/matches/{match}/notes/", {"side": "b", "deal": "1", "text": "Zé"},
        {"side": FORM_CHOICES, "deal": BLANK_IS_DEFAULT, "text": FORM_TEXTS}, ["side", "text"],
    ),
    "calculator": (
        "ana", "/matches/{match}/calculator/", {"points": "65"},
        {"points": FORM_NUMBERS, "every_trick": FORM_BOOLS, "aces": BLANK_IS_DEFAULT},
        [],
    ),
}  # fmt: skip
BODILESS_PAGES = {
    "undo": ("ana", "/matches/{match}/undo/"),
    "end": ("ana", "/matches/{match}/end/"),
    "renew links": ("ana", "/matches/{match}/renew/"),
    "withdraw a note": ("ana", "/matches/{match}/notes/{note}/withdraw/"),
    "rematch": ("ana", "/matches/{ended}/rematch/"),
}


def page_client(world, who, **options):
    client = Client(**options)
    if who is not None:
        client.force_login(world["people"][who])
    return client


def check_page(refusals, case, response, before, htmx):
    """htmx gets a 4xx with the message; a plain form a 4xx page with it, or (for the
    sheet's buttons) the way back to the sheet with the message to show there."""
    status = response.status_code
    if status == 302 and not htmx:
        said = messages_of(response)
        if not said or response["Location"].startswith("/accounts/login/"):
            refusals.failures.append(f"{case}: redirected without a message")
    elif not 400 <= status < 500:
        refusals.failures.append(f"{case}: {status} {text(response)[:200]!r}")
        return
    elif len(text(response).strip()) < 10:
        refusals.failures.append(f"{case}: {status} without a message")
    if snapshot() != before:
        refusals.failures.append(f"{case}: {status} yet the database changed")


def post_all(refusals, client, path, bodies, before):
    for case, body in bodies:
        for htmx in (False, True):
            response = client.post(path, body, **(HTMX if htmx else {}))
            check_page(refusals, f"{case}{' (htmx)' if htmx else ''}", response, before, htmx)


def test_the_accepted_forms_are_accepted(world):
    for name, (who, path, body, _fields, _required) in PAGES.items():
        client = page_client(world, who)
        before = snapshot()
        response = client.post(fill(path, world), fill_body(body, world))
        if name not in ("calculator", "log in"):  # these two store nothing
            assert snapshot() != before, name
        assert response.status_code in (200, 302), (name, response.status_code)
        if response.status_code == 302:
            assert not response["Location"].startswith("/accounts/login/"), name
        if name != "calculator":
            assert "errorlist" not in text(response), name


@pytest.mark.parametrize("name", list(PAGES))
def test_every_form_field_refuses_what_it_must(world, name):
    who, path, body, fields, required = PAGES[name]
    client, path, body = page_client(world, who), fill(path, world), fill_body(body, world)
    before = snapshot()
    refusals = Refusals()
    bodies = [
        (f"{name} {field}={value!r:.40}", {**body, field: value})
        for field, values in fields.items()
        for value in values
    ]
    bodies += [(f"{name} without {field}", spoil(body, field, MISSING)) for field in required]
    bodies += [
        (f"{name} with {extra!r:.30}", {**body, **extra})
        for extra in ({"games_a": "4"}, {"host": "olga"}, {"x" * 1000: "y"})
    ]
    post_all(refusals, client, path, bodies, before)
    refusals.assert_none()


@pytest.mark.parametrize("name", list(BODILESS_PAGES))
def test_buttons_refuse_fields_they_do_not_have(world, name):
    who, path = BODILESS_PAGES[name]
    client, path = page_client(world, who), fill(path, world)
    before = snapshot()
    refusals = Refusals()
    bodies = [(f"{name} with {extra!r:.30}", extra) for extra in ({"games": "1"}, {"x": LONG})]
    post_all(refusals, client, path, bodies, before)
    refusals.assert_none()


def test_a_page_body_over_the_size_limit_is_refused(world):
    client = page_client(world, "ana")
    before = snapshot()
    refusals = Refusals()
    body = {"deal": "2", "side": "a", "games": "1", "text": "x" * 3_000_000}
    post_all(refusals, client, fill("/matches/{match}/entries/", world), [("3 MB", body)], before)
    refusals.assert_none()


def test_pages_refuse_ids_that_name_nothing_or_another_matchs(world):
    client = page_client(world, "ana")
    before = snapshot()
    refusals = Refusals()
    match = world["match"].pk
    for id_ in ("0", str(10**30), str(2**63), "9" * 5000):
        for path in (f"/matches/{id_}/", f"/matches/{id_}/sheet/", f"/history/{id_}/",
                     f"/nights/{id_}/"):  # fmt: skip
            response = client.get(path)
            if response.status_code != 404:
                refusals.failures.append(f"GET {path[:50]}: {response.status_code}")
        post_all(refusals, client, f"/matches/{id_}/undo/", [(f"undo {id_[:20]}", {})], before)
        path = f"/matches/{match}/notes/{id_}/withdraw/"
        post_all(refusals, client, path, [(f"withdraw {id_[:20]}", {})], before)
        path = f"/matches/{match}/deals/{id_}/"
        post_all(refusals, client, path, [(f"correct {id_[:20]}", {"a": "0", "b": "2"})], before)
    other_note = world["other_note"].pk
    cases = [
        (f"/matches/{match}/notes/{other_note}/withdraw/", {}),
        (f"/matches/{match}/deals/3/", {"a": "0", "b": "2"}),
        (f"/matches/{match}/entries/", {"deal": "4", "side": "a", "games": "1"}),
        (f"/matches/{match}/notes/", {"side": "a", "deal": "3", "text": "x"}),
    ]
    for path, body in cases:
        post_all(refusals, client, path, [(f"{path} {body}", body)], before)
    refusals.assert_none()


def test_forged_and_old_links_open_nothing(world):
    before = snapshot()
    open_ = world["open"]
    tokens = [world["old_token"], "x" * 32, open_.join_token[:-1], open_.join_token + "x",
              "%00", "a%00b", "ação", LONG, open_.watch_token]  # fmt: skip
    for who in (None, "olga"):
        client = page_client(world, who)
        for token in tokens:
            for response in (
                client.get(f"/join/{token}/"),
                client.post(f"/join/{token}/", {"seat": "b2", "name": "Olga"}),
            ):
                assert response.status_code == 404, (who, token[:40], response.status_code)
                assert "Maria" not in text(response)
            if token != open_.watch_token:
                assert client.get(f"/watch/{token}/").status_code == 404, token[:40]
        assert client.get(f"/watch/{open_.join_token}/").status_code == 404
    assert snapshot() == before


def test_every_form_needs_its_csrf_token(world):
    clients = {
        who: page_client(world, who, enforce_csrf_checks=True)
        for who in {page[0] for page in (*PAGES.values(), *BODILESS_PAGES.values())}
    }
    before = snapshot()
    refusals = Refusals()
    for name, (who, path, body, _fields, _required) in PAGES.items():
        client = clients[who]
        post_all(
            refusals,
            client,
            fill(path, world),
            [(f"{name} without CSRF", fill_body(body, world))],
            before,
        )
    for name, (who, path) in BODILESS_PAGES.items():
        client = clients[who]
        post_all(refusals, client, fill(path, world), [(f"{name} without CSRF", {})], before)
    refusals.assert_none()
    response = page_client(world, "ana", enforce_csrf_checks=True).post(
        fill("/matches/{match}/entries/", world), {"deal": "2", "side": "a", "games": "1"}
    )
    assert response.status_code == 403
    assert "Reload the page" in text(response)


class Forms(HTMLParser):
    """Each POST form of a page: its action and the names of the fields it sends."""

    def __init__(self):
        super().__init__()
        self.forms = []
        self.open = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and attrs.get("method", "get").lower() == "post":
            self.open = (attrs.get("action") or "", set())
            self.forms.append(self.open)
        elif tag in ("input", "select", "textarea", "button") and self.open and attrs.get("name"):
            self.open[1].add(attrs["name"])

    def handle_endtag(self, tag):
        if tag == "form":
            self.open = None


def test_our_pages_post_only_the_fields_their_views_take(world):
    """The other side of refusing unknown fields: no form of ours sends one."""
    match, ended, token = world["match"], world["ended"], world["open"].join_token
    pages = [
        (None, "/"), (None, "/guest/"), (None, "/accounts/login/"), (None, "/accounts/signup/"),
        ("guest", "/accounts/keep/"), ("ana", "/"), ("ana", "/matches/new/"),
        (None, f"/join/{token}/"), ("olga", f"/join/{token}/"),
        ("ana", f"/matches/{match.pk}/"), ("rui", f"/matches/{match.pk}/"),
        ("ze", f"/matches/{match.pk}/"), ("ana", f"/matches/{match.pk}/end/"),
        ("ana", f"/matches/{match.pk}/deals/"), ("ana", f"/matches/{match.pk}/invite/"),
        ("ana", f"/matches/{ended.pk}/"),
    ]  # fmt: skip
    checked = set()
    for who, path in pages:
        response = page_client(world, who).get(path)
        assert response.status_code == 200, path
        parser = Forms()
        parser.feed(text(response))
        for action, names in parser.forms:
            route = resolve(urlsplit(action or path).path)
            allowed = getattr(route.func, "posted_fields", None)
            if allowed is None:
                continue  # Django's own (the language switch) or another page's
            assert names <= allowed, (path, action, names - allowed)
            checked.add(route.url_name)
    assert {"guest", "signup", "keep", "new_match", "join", "entry", "undo", "correct",
            "end", "add_note", "calculator", "login", "renew"} <= checked  # fmt: skip
