"""The API's paths, under /api/: API.md's, and the schema with its page."""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularSwaggerSplitView

from .. import converters  # noqa: F401  (registers the path converters)
from . import accounts, events, matches, playing, seats
from .base import not_found
from .schema import SchemaView

urlpatterns = [
    path("auth/guest/", accounts.guest, name="api-guest"),
    path("auth/token/", accounts.TokenView.as_view(), name="api-token"),
    path("auth/token/new/", accounts.new_token, name="api-new-token"),
    path("calculator/", playing.calculator, name="api-calculator"),
    path("matches/", matches.matches, name="api-matches"),
    path("matches/<int:id>/", matches.match_detail, name="api-match"),
    path("matches/<int:id>/join/", seats.join, name="api-join"),
    path("matches/<int:id>/links/", matches.renew_links, name="api-renew-links"),
    path("matches/<int:id>/seats/<seat:seat>/free/", seats.free_seat, name="api-free-seat"),
    path("matches/<int:id>/seats/<seat:seat>/link/", seats.seat_link, name="api-seat-link"),
    path("matches/<int:id>/seats/<seat:seat>/claim/", seats.claim_seat, name="api-claim-seat"),
    path("matches/<int:id>/seat-requests/", seats.seat_requests, name="api-seat-requests"),
    path(
        "matches/<int:id>/seat-requests/<int:request_id>/",
        seats.seat_request,
        name="api-seat-request",
    ),
    path("matches/<int:id>/entries/", playing.entries, name="api-entries"),
    path("matches/<int:id>/undo/", playing.undo, name="api-undo"),
    path("matches/<int:id>/redeal/", playing.redeal, name="api-redeal"),
    path("matches/<int:id>/deals/<int:number>/", playing.correct, name="api-correct"),
    path("matches/<int:id>/notes/", playing.notes, name="api-notes"),
    path("matches/<int:id>/notes/<int:note_id>/", playing.note, name="api-note"),
    path("matches/<int:id>/end/", playing.end, name="api-end"),
    path("matches/<int:id>/history/", matches.history, name="api-history"),
    path("matches/<int:id>/events/", events.match_events, name="api-match-events"),
    path("matches/<int:id>/rematch/", matches.rematch, name="api-rematch"),
    path("watch/<token:watch_token>/", matches.watch, name="api-watch"),
    path("watch/<token:watch_token>/events/", events.watch_events, name="api-watch-events"),
    path("nights/<int:id>/", matches.night, name="api-night"),
    path("nights/<int:id>/events/", events.night_events, name="api-night-events"),
    path("schema/", SchemaView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file, not inline,
    # which the Content-Security-Policy would block.
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api/docs.html"),
        name="api-docs",
    ),
    # Anything else under /api/ answers in JSON too, not with the HTML 404 page.
    re_path(r"^", not_found),
]
