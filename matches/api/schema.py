"""What the generated OpenAPI schema says beyond what drf-spectacular reads by itself,
and the schema served once built.

The views declare their own answers (``base.answers``, ``events.streams``); the hooks
here add what every operation of a kind may meet whatever its view, since a middleware
or the server answers it: the database out of reach, the reads limit, a body of the
wrong type, an ``Idempotency-Key``. And the links from what makes a thing to what acts
on it, which drf-spectacular has no way to declare.
"""

import threading

from django.conf import settings
from django.http import HttpResponse
from django.utils import translation
from drf_spectacular.settings import spectacular_settings
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView

from .. import idempotency

WRITES = ("post", "put", "patch", "delete")


def closed_bodies(result, generator, request, public):
    """A request body holds only the fields it names (``api.fields.Body`` refuses any
    other), so each request component says ``additionalProperties: false``. Every
    request component is a ``Body``: the settings split requests from answers
    (``COMPONENT_SPLIT_REQUEST``), and their names end in "Request".

    A body that comes in shapes (the calculator's points or cards) is required when
    each of its shapes requires a field."""
    schemas = result.get("components", {}).get("schemas", {})
    for name, component in schemas.items():
        if name.endswith("Request") and component.get("type") == "object":
            component["additionalProperties"] = False
    for _path, _method, operation in operations(result):
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        shapes = schemas.get(component_name(body["schema"]), {}).get("oneOf") if body else None
        if shapes and all(schemas[component_name(shape)].get("required") for shape in shapes):
            operation["requestBody"]["required"] = True
    return result


def event_streams(result, generator, request, public):
    """An event stream's body is events for as long as it lasts, no one value: its media
    type names no schema (drf-spectacular always writes one), so that a generated client
    does not take it for one string. It is read with a Server-Sent Events client."""
    for _path, _method, operation in operations(result):
        for answer in operation["responses"].values():
            answer.get("content", {}).get("text/event-stream", {}).pop("schema", None)
    return result


# What every operation of a kind may answer ------------------------------------------


def refusal(description, component="Error"):
    schema = {"$ref": f"#/components/schemas/{component}"}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


RETRY_AFTER = {
    "description": "The seconds to wait before trying again.",
    "schema": {"type": "integer", "minimum": 0},
}
UNREACHABLE = refusal("The database cannot be reached right now: try again in a moment.")
TOO_MANY_READS = refusal(
    "Too many reads from your address, or (a stream) too many streams open for you or from "
    "your address: try again later."
)
NOT_ACCEPTABLE = refusal("No answer of the kind the Accept header asks for: the API answers JSON.")
UNSUPPORTED = refusal("The body is not JSON: send Content-Type: application/json.")
TOO_LARGE = refusal("The body is too large (bin/serve's server; others answer 400).")
FORGERY = refusal("Not allowed (signed in by the browser's session, without its CSRF token).")
KEY_REUSED = refusal(
    "This Idempotency-Key was sent with another request: nothing was done. "
    "Send a new key with each new request."
)
BAD_INPUT = refusal("Bad input.", "ValidationError")
IDEMPOTENCY_KEY = {
    "in": "header",
    "name": idempotency.HEADER,
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": r"^[\x20-\x7e]+$"},
    "description": "A fresh key for each new request, 1 to 64 printable ASCII characters. "
    "Sent again with the same body within 24 hours, the request gets its first answer again "
    "(the same status and body, with Idempotent-Replayed: true) and changes nothing more; "
    "with another body, 422. A malformed key gets 400.",
}


def what_any_operation_may_answer(result, generator, request, public):
    """The answers no view gives by itself: 503 from every operation while the database is
    out of reach (``outage``); 429 from every read past the reads limit (``limits``), and
    from a stream past the streams a person or an address may hold open (``events``); 406
    from any operation answering JSON to a client that accepts none; 415 (and, from
    bin/serve, 413) from an operation with a body of another type or size; 403 from a
    write signed in by a session without its CSRF token; and, on a write by someone signed
    in, the Idempotency-Key (``idempotency``) with its 400 and 422. 429 and 503 say when
    to try again."""
    for _path, method, operation in operations(result):
        answers = operation["responses"]
        security = operation.get("security", [])
        if method == "get":
            answers.setdefault("429", TOO_MANY_READS)
        if "text/event-stream" not in answers.get("200", {}).get("content", {}):
            answers.setdefault("406", NOT_ACCEPTABLE)
        if "requestBody" in operation:
            answers.setdefault("413", TOO_LARGE)
            answers.setdefault("415", UNSUPPORTED)
        if method in WRITES and {"cookieAuth": []} in security:
            answers.setdefault("403", FORGERY)
        if method in WRITES and security and {} not in security:
            operation.setdefault("parameters", []).append(IDEMPOTENCY_KEY)
            answers.setdefault("400", BAD_INPUT)
            answers["422"] = KEY_REUSED
        answers["503"] = UNREACHABLE
        for status in ("429", "503"):
            if status in answers:
                answers[status] = {**answers[status], "headers": {"Retry-After": RETRY_AFTER}}
        operation["responses"] = dict(sorted(answers.items()))
    return result


# Links --------------------------------------------------------------------------------

MATCH = {"id": "$response.body#/id"}
SAME = {"id": "$request.path.id"}  # the match (or tournament) the request was about
NIGHT = {"id": "$response.body#/night"}
WATCHING = {"watch_token": "$response.body#/watch_token"}
# The join link's token, which the host alone sees in the match, for a seat to take or ask back.
JOIN_TOKEN = {"token": "$response.body#/join_token"}


def on_the_match(match):
    """Where a match leads, ``match`` saying which it is: every operation on it, the
    host's links and its night."""
    return {
        "get_match": match,
        "enter_games": match,
        "undo_entry": match,
        "redeal": match,
        "correct_deal": {**match, "number": "$response.body#/current_deal"},
        "add_note": match,
        "end_match": match,
        "match_history": match,
        "match_events": match,
        "rematch": match,
        "renew_links": match,
        "free_seat": match,
        "make_seat_link": match,
        "join_match": (match, JOIN_TOKEN),
        "ask_for_seat": (match, JOIN_TOKEN),
        "watch_match": WATCHING,
        "watch_events": WATCHING,
        "get_night": NIGHT,
        "night_events": NIGHT,
    }


TOURNAMENT = {"id": "$response.body#/id"}
TOURNAMENT_WATCHING = {"watch_token": "$response.body#/watch_token"}
ON_THE_TOURNAMENT = {
    "get_tournament": TOURNAMENT,
    "set_tournament_pairs": TOURNAMENT,
    "start_round": TOURNAMENT,
    "start_negra": TOURNAMENT,
    "end_tournament": TOURNAMENT,
    "tournament_events": TOURNAMENT,
    "watch_tournament": TOURNAMENT_WATCHING,
    "tournament_watch_events": TOURNAMENT_WATCHING,
}
FIRST_SERIES = "$response.body#/rounds/0/series/0"
CLUB = {"id": "$response.body#/id"}
ON_THE_CLUB = {
    "get_club": CLUB,
    "add_club_player": CLUB,
    "get_club_ratings": CLUB,
    "get_club_forecast": CLUB,
    "start_club_season": CLUB,
    "club_events": CLUB,
    # Its only organiser, whom the club keeps.
    "remove_club_organiser": {**CLUB, "user_id": "$response.body#/organisers/0/id"},
    "watch_club": {"watch_token": "$response.body#/watch_token"},
    "club_watch_events": {"watch_token": "$response.body#/watch_token"},
}
PLAYER = {**SAME, "player_id": "$response.body#/id"}

# (operation, status) -> {target operation: its parameters, or (parameters, body)}
LINKS = {
    ("start_match", "201"): {
        **on_the_match(MATCH),
        # The seat the host took, the one seat held as a match starts, asked back.
        "ask_for_seat": (MATCH, {**JOIN_TOKEN, "seat": "$request.body#/host_seat"}),
    },
    ("rematch", "201"): on_the_match(MATCH),
    ("renew_links", "200"): on_the_match(MATCH),
    ("add_note", "201"): {"withdraw_note": {**SAME, "note_id": "$response.body#/id"}},
    ("ask_for_seat", "201"): {"answer_seat_request": {**SAME, "request_id": "$response.body#/id"}},
    ("make_seat_link", "200"): {
        "claim_seat": (
            {**SAME, "seat": "$response.body#/seat"},
            {"token": "$response.body#/link_token"},
        )
    },
    ("start_tournament", "201"): ON_THE_TOURNAMENT,
    ("start_round", "201"): {
        "record_walkover": {**SAME, "series_id": f"{FIRST_SERIES}/id"},
        "undo_walkover": {**SAME, "series_id": f"{FIRST_SERIES}/id"},
        "get_match": {"id": f"{FIRST_SERIES}/current_match"},
    },
    ("record_walkover", "200"): {"undo_walkover": {**SAME, "series_id": "$request.path.series_id"}},
    ("start_negra", "201"): {"get_match": {"id": "$response.body#/match"}},
    ("start_club", "201"): ON_THE_CLUB,
    ("add_club_player", "201"): {
        "get_club_player": PLAYER,
        "rename_club_player": PLAYER,
        "hand_club_player_link": PLAYER,
        # The player with no account yet, and the player merged into itself: refused.
        "add_club_organiser": (SAME, {"player": "$response.body#/id"}),
        "merge_club_players": (PLAYER, {"into": "$response.body#/id"}),
    },
    ("hand_club_player_link", "200"): {
        "get_club_player_link": {"token": "$response.body#/token"},
        "link_club_player": {"token": "$response.body#/token"},
    },
    ("start_club_season", "201"): {"get_club_season": {**SAME, "season_id": "$response.body#/id"}},
}


def links(result, generator, request, public):
    """OpenAPI links: from the answer that makes a thing (a match, a note, a request for a
    seat, a seat's link, a tournament, its round) to the operations on it, with the
    values the next request takes from that answer."""
    by_id = {operation["operationId"]: operation for _p, _m, operation in operations(result)}
    for (source, status), targets in LINKS.items():
        answer = by_id[source]["responses"][status]
        for target, given in targets.items():
            parameters, body = given if isinstance(given, tuple) else (given, None)
            link = {"operationId": target, "parameters": parameters}
            if body is not None:
                link["requestBody"] = body
            link["description"] = by_id[target].get("summary", "")
            answer.setdefault("links", {})[target] = link
    return result


def operations(result):
    for path, methods in result.get("paths", {}).items():
        for method, operation in methods.items():
            yield path, method, operation


def component_name(schema):
    return schema.get("$ref", "").rsplit("/", 1)[-1]


# The schema served --------------------------------------------------------------------

_building = threading.Lock()
_built = {}  # the schema, and its rendering by each renderer class


def warm():
    """The schema, generated once in this process: concurrent first callers wait for
    the one build (drf-spectacular's generation is neither cheap nor safe to run twice
    at once). For the server's start-up to call, so that no request waits for it."""
    if "schema" not in _built:
        with _building:
            if "schema" not in _built:
                # The schema is the same in every language: one build, in the default.
                with translation.override(settings.LANGUAGE_CODE):
                    generator = spectacular_settings.DEFAULT_GENERATOR_CLASS()
                    _built["schema"] = generator.get_schema(request=None, public=True)
    return _built["schema"]


class SchemaView(SpectacularAPIView):
    """``/api/schema/``: drf-spectacular's view, answering as it does (YAML, or JSON by
    the Accept header or ``?format=json``) from the schema built once, each format
    rendered once."""

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        renderer = request.accepted_renderer
        body = _rendered(type(renderer))
        response = HttpResponse(body, content_type=content_type(renderer))
        response["Content-Disposition"] = f'inline; filename="{filename(renderer)}"'
        return response


def _rendered(renderer_class):
    schema = warm()
    if renderer_class not in _built:
        with _building:
            if renderer_class not in _built:
                _built[renderer_class] = renderer_class().render(schema)
    return _built[renderer_class]


def content_type(renderer):
    if renderer.charset:
        return f"{renderer.media_type}; charset={renderer.charset}"
    return renderer.media_type


def filename(renderer):
    return f"{settings.SPECTACULAR_SETTINGS['TITLE']}.{renderer.format}"
