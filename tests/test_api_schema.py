"""The OpenAPI schema: valid OpenAPI 3, every path of API.md with its bodies, what
every operation may answer, and schemathesis fuzzing every operation against it."""

import datetime
import re

import pytest
import schemathesis
from drf_spectacular.validation import validate_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from matches import values
from matches.api import fields
from matches.models import Match, SeatRequest, User, clean_seat_name
from scoresheet.wsgi import application
from tests.clubs import club_of
from tests.tournaments import tournament_of

# Every operation of API.md: (method, path, request body?, success status).
CONTRACT = [
    ("post", "/api/auth/guest/", True, "201"),
    ("post", "/api/auth/token/", True, "200"),
    ("delete", "/api/auth/token/", False, "204"),
    ("post", "/api/calculator/", True, "200"),
    ("post", "/api/matches/", True, "201"),
    ("get", "/api/matches/", False, "200"),
    ("get", "/api/matches/{id}/", False, "200"),
    ("post", "/api/matches/{id}/join/", True, "200"),
    ("get", "/api/watch/{watch_token}/", False, "200"),
    ("post", "/api/matches/{id}/entries/", True, "201"),
    ("post", "/api/matches/{id}/undo/", True, "200"),  # which entry, the version seen
    ("put", "/api/matches/{id}/deals/{number}/", True, "200"),
    ("post", "/api/matches/{id}/notes/", True, "201"),
    ("delete", "/api/matches/{id}/notes/{note_id}/", False, "204"),
    ("post", "/api/matches/{id}/end/", True, "200"),  # the version seen
    ("get", "/api/matches/{id}/history/", False, "200"),
    ("post", "/api/matches/{id}/rematch/", True, "201"),
    ("get", "/api/nights/{id}/", False, "200"),
    ("post", "/api/tournaments/", True, "201"),
    ("get", "/api/tournaments/{id}/", False, "200"),
    ("post", "/api/tournaments/{id}/rounds/", False, "201"),
    ("post", "/api/tournaments/{id}/series/{series_id}/walkover/", True, "200"),
    ("delete", "/api/tournaments/{id}/series/{series_id}/walkover/", False, "200"),
    ("post", "/api/tournaments/{id}/negra/", True, "201"),
    ("post", "/api/tournaments/{id}/end/", False, "200"),
    ("get", "/api/tournaments/watch/{watch_token}/", False, "200"),
    ("get", "/api/tables/{table_token}/", False, "200"),
    ("post", "/api/clubs/", True, "201"),
    ("get", "/api/clubs/{id}/", False, "200"),
    ("get", "/api/clubs/watch/{watch_token}/", False, "200"),
    ("post", "/api/clubs/{id}/players/", True, "201"),
    ("get", "/api/clubs/{id}/ratings/", False, "200"),
    ("get", "/api/clubs/{id}/forecast/", False, "200"),
    ("get", "/api/clubs/{id}/players/{player_id}/", False, "200"),
    ("post", "/api/clubs/{id}/seasons/", True, "201"),
    ("get", "/api/clubs/{id}/seasons/{season_id}/", False, "200"),
]


@pytest.fixture
def openapi(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


def test_schema_is_valid_openapi_3(openapi):
    assert openapi["openapi"].startswith("3.")
    validate_schema(openapi)  # raises on anything outside the OpenAPI 3 meta-schema


@pytest.mark.parametrize(("method", "path", "has_body", "success"), CONTRACT)
def test_schema_describes_every_operation_of_the_contract(openapi, method, path, has_body, success):
    operation = openapi["paths"][path][method]
    responses = operation["responses"]
    assert success in responses
    if success != "204":
        body = responses[success]["content"]["application/json"]["schema"]
        assert "$ref" in body.get("items", body)
    assert "requestBody" in operation if has_body else "requestBody" not in operation
    if has_body:
        assert "application/json" in operation["requestBody"]["content"]
    refusals = [status for status in responses if status.startswith("4")]
    assert refusals
    for status in refusals:
        schema = responses[status]["content"]["application/json"]["schema"]
        assert schema["$ref"] in (
            "#/components/schemas/Error",
            "#/components/schemas/ValidationError",
            # A round refused names what is in its way, for a program too.
            "#/components/schemas/RoundRefused",
        )


def test_docs_page_is_served_from_the_installed_swagger_ui(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    # Nothing inline, for the Content-Security-Policy: the start-up script is a file.
    assert "<style" not in page
    assert '<script src="/api/docs/?script="></script>' in page
    script = client.get("/api/docs/?script=")
    assert script["Content-Type"].startswith("application/javascript")
    assert "/api/schema/" in script.content.decode()


def test_schema_is_served_as_yaml_and_as_json(client, openapi):
    yaml = client.get("/api/schema/")
    assert yaml["Content-Type"] == "application/vnd.oai.openapi; charset=utf-8"
    assert yaml.content.startswith(b"openapi: 3")
    for asked in ({"HTTP_ACCEPT": "application/json"}, {"data": {"format": "json"}}):
        json = client.get("/api/schema/", **asked)
        assert json.status_code == 200
        assert json["Content-Type"].startswith("application/")
        assert json.json() == openapi
    assert client.get("/api/schema/", HTTP_ACCEPT="text/html").status_code == 406


# What every operation declares -------------------------------------------------------------


def operations(openapi):
    for path, methods in openapi["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def retry_after(answer):
    return answer["headers"]["Retry-After"]["schema"]["type"] == "integer"


def test_every_operation_declares_the_database_out_of_reach(openapi):
    for _path, _method, operation in operations(openapi):
        assert retry_after(operation["responses"]["503"])


def test_every_read_declares_the_reads_limit(openapi):
    reads = [operation for _path, method, operation in operations(openapi) if method == "get"]
    assert len(reads) == 22
    for operation in reads:
        assert retry_after(operation["responses"]["429"])


def test_the_throttled_writes_declare_their_limit(openapi):
    for path in ("/api/auth/guest/", "/api/auth/token/", "/api/matches/{id}/join/"):
        assert retry_after(openapi["paths"][path]["post"]["responses"]["429"])
    assert "429" not in openapi["paths"]["/api/matches/{id}/entries/"]["post"]["responses"]


def test_every_operation_with_a_body_declares_a_body_of_another_type(openapi):
    for _path, _method, operation in operations(openapi):
        declared = "415" in operation["responses"]
        assert declared == ("requestBody" in operation)


def test_every_write_under_matches_may_carry_an_idempotency_key(openapi):
    writes = 0
    for path, method, operation in operations(openapi):
        keyed = [p for p in operation.get("parameters", []) if p["name"] == "Idempotency-Key"]
        if path.startswith("/api/matches/") and method in ("post", "put", "delete"):
            writes += 1
            (key,) = keyed
            assert (key["in"], key["schema"]["maxLength"]) == ("header", 64)
            assert {"400", "422"} <= set(operation["responses"])
        if method == "get" or path in ("/api/calculator/", "/api/auth/guest/"):
            assert keyed == [] and "422" not in operation["responses"]
    assert writes == 16


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/api/matches/{id}/undo/"),
        ("put", "/api/matches/{id}/deals/{number}/"),
        ("post", "/api/matches/{id}/end/"),
        ("post", "/api/matches/{id}/rematch/"),
        ("post", "/api/matches/{id}/redeal/"),
    ],
)
def test_actions_on_a_version_seen_take_it_as_if_match(openapi, method, path):
    operation = openapi["paths"][path][method]
    assert "If-Match" in [p["name"] for p in operation["parameters"] if p["in"] == "header"]
    assert {"400", "409"} <= set(operation["responses"])


def test_if_match_is_declared_only_where_it_is_read(openapi):
    entries = openapi["paths"]["/api/matches/{id}/entries/"]["post"]
    assert "If-Match" not in [p["name"] for p in entries["parameters"]]


STREAMS = [
    "/api/matches/{id}/events/",
    "/api/nights/{id}/events/",
    "/api/watch/{watch_token}/events/",
    "/api/tournaments/{id}/events/",
    "/api/tournaments/watch/{watch_token}/events/",
]


@pytest.mark.parametrize("path", STREAMS)
def test_event_streams_are_declared_as_streams_of_events(openapi, path):
    answers = openapi["paths"][path]["get"]["responses"]
    assert list(answers["200"]["content"]) == ["text/event-stream"]
    assert "schema" not in answers["200"]["content"]["text/event-stream"]
    assert "406" not in answers  # a stream refuses in JSON whatever the client accepts
    if "watch" in path:
        assert "401" not in answers  # no sign-in: the token is enough


# What the bodies declare ----------------------------------------------------------------


NAMES = [
    ("SeatNamesRequest", "a1"),
    ("SeatNamesRequest", "b2"),
    ("GuestRequest", "name"),
    ("NoteCreateRequest", "text"),
    ("TournamentCreateRequest", "name"),
]


@pytest.mark.parametrize(("component", "field"), NAMES)
def test_names_the_models_refuse_empty_are_declared_so(openapi, component, field):
    schema = openapi["components"]["schemas"][component]["properties"][field]
    assert schema["minLength"] == 1
    pattern = re.compile(schema["pattern"])
    for written in ("Ana", "Zé Maria", "李", "🂡", " Rui "):
        assert pattern.search(written)
    for blank in ("", " ", "\t\n", "\u200b", "\u00a0\u3000", "Ana\x00"):
        assert not pattern.search(blank)


def test_the_pairs_names_are_declared_as_seat_names(openapi):
    pairs = openapi["components"]["schemas"]["TournamentCreateRequest"]["properties"]["pairs"]
    seat = openapi["components"]["schemas"]["SeatNamesRequest"]["properties"]["a1"]
    assert pairs["items"]["items"]["minLength"] == 1
    assert pairs["items"]["items"]["pattern"] == seat["pattern"]


@given(st.text(st.characters(categories=["Zs", "Zl", "Zp", "Cc", "Cf", "Mn"]), max_size=8))
def test_a_name_the_schema_refuses_the_model_refuses_too(text):
    if not re.search(fields.SOMETHING_WRITTEN, text):
        with pytest.raises(values.Refusal):
            clean_seat_name(text)


def test_the_calculator_takes_points_or_cards(openapi):
    operation = openapi["paths"]["/api/calculator/"]["post"]
    assert operation["requestBody"]["required"] is True
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    shapes = openapi["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]["oneOf"]
    required = []
    for shape in shapes:
        schema = openapi["components"]["schemas"][shape["$ref"].rsplit("/", 1)[-1]]
        assert set(schema["properties"]) == {"points", "cards", "every_trick", "bandeira_at_120"}
        assert schema["additionalProperties"] is False
        required.append(schema["required"])
    assert sorted(required) == [["cards"], ["points"]]


# Links ------------------------------------------------------------------------------------


def made(openapi, path):
    """The links from the answer that makes a thing at ``path``."""
    return openapi["paths"][path]["post"]["responses"]["201"]["links"]


def operations_on(openapi, prefix, *but):
    return {
        operation["operationId"]
        for path, _method, operation in operations(openapi)
        if path.startswith(prefix) and not any(part in path for part in but)
    }


def test_what_makes_a_match_links_to_every_operation_on_it(openapi):
    links = made(openapi, "/api/matches/")
    # What acts on a note, a request for a seat or a seat's link follows from those.
    on_it = operations_on(openapi, "/api/matches/{id}/", "{note_id}", "{request_id}", "/claim/")
    assert on_it <= set(links)
    assert links["get_match"]["parameters"] == {"id": "$response.body#/id"}
    assert links["watch_match"]["parameters"] == {"watch_token": "$response.body#/watch_token"}
    assert links["join_match"]["requestBody"] == {"token": "$response.body#/join_token"}


def test_what_makes_a_tournament_links_to_every_operation_on_it(openapi):
    links = made(openapi, "/api/tournaments/")
    on_it = operations_on(openapi, "/api/tournaments/{id}/", "{series_id}")
    assert on_it | {"watch_tournament", "tournament_watch_events"} == set(links)


# Fuzzing ----------------------------------------------------------------------------------

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
schema.config.generation.update(max_examples=30, with_security_parameters=False)

# Every answer is one the schema declares (test_api_links.py checks the same).
CONFORMANCE = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
CHECKS = [
    *CONFORMANCE,
    # What the schema calls invalid is refused: an unknown field, a number for text, an
    # empty filter. (Not the converse: some rules no schema can say, such as card
    # points of 1 or 119, refuse what the schema lets through, with a 400 saying why.)
    negative_data_rejection,
]


@pytest.fixture
def table(match, ana, ze):
    match.record(ana, deal=1, side="a", games=1)
    note = match.add_note(ze, side="b", text="revoke")
    return match, note


@pytest.fixture
def club(ana, ze):
    """Ana's club: Zé's account is one of its players, and Rui's link is out."""
    club, players = club_of(ana)
    players["Zé"].user = ze
    players["Zé"].save()
    rui = club.hand_link(ana, players["Rui"].pk)
    season = club.add_season(
        ana, name="Época", start=datetime.date(2026, 9, 1), end=datetime.date(2027, 6, 30)
    )
    return club, rui, season


@pytest.fixture
def tournament(ana):
    tournament = tournament_of(ana, pairs=4, tables=2)
    tournament.start_round(ana)
    return tournament


@pytest.mark.django_db
@pytest.mark.parametrize("person", ["host", "member", "anonymous"])
@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck))
def test_fuzzing_finds_no_server_error_and_no_answer_outside_the_schema(
    case, person, table, tournament, club, same_connection, ana, ze
):
    match, note = table
    club, player, season = club
    tournaments = case.path.startswith("/api/tournaments/")
    clubs = case.path.startswith("/api/clubs/")
    # Point most cases at the real match, note, night and tournament, so they get past 404:
    # each read only for a path that names it (a tournament's progress or a new guest for
    # every case was most of this test's time).
    real = {
        "id": lambda: (
            match.night_id
            if case.path.startswith("/api/nights/")
            else tournament.pk
            if tournaments
            else club.pk
            if clubs
            else match.pk
        ),
        "player_id": lambda: player.pk,
        "season_id": lambda: season.pk,
        "user_id": lambda: ana.pk,
        "token": lambda: player.link_token,
        "series_id": lambda: tournament.progress().rounds[0].series[0].id,
        "table_token": lambda: tournament.tables.first().token,
        "note_id": lambda: note.pk,
        "watch_token": lambda: (
            tournament.watch_token
            if tournaments
            else club.watch_token
            if clubs
            else match.watch_token
        ),
        "number": lambda: 1,
        "seat": lambda: "b1",
        # A request still open for each case, as one may answer it.
        "request_id": lambda: (
            SeatRequest.objects.create(match=match, position="b1", user=User.create_guest("Zé")).pk
        ),
    }
    parameters = case.path_parameters or {}
    # A path made to be wrong stays wrong: its refusal is what that case checks.
    if not case.meta.is_negative_at(ParameterLocation.PATH):
        for name, value in list(parameters.items()):
            if not (isinstance(value, int) and value % 5 == 0):
                parameters[name] = real[name]()
    headers = {}
    if person != "anonymous":
        user = ana if person == "host" else ze
        headers["Authorization"] = f"Token {Token.objects.get_or_create(user=user)[0].key}"
    case.call_and_validate(headers=headers, checks=CHECKS)
    assert Match.objects.filter(pk=match.pk).exists()
