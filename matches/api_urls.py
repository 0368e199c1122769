from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from . import api, converters  # noqa: F401  (registers the path converters)

urlpatterns = [
    path("auth/guest/", api.guest, name="api-guest"),
    path("auth/token/", api.token, name="api-token"),
    path("calculator/", api.calculator, name="api-calculator"),
    path("matches/", api.matches, name="api-matches"),
    path("matches/<int:id>/", api.match_detail, name="api-match"),
    path("matches/<int:id>/join/", api.join, name="api-join"),
    path("matches/<int:id>/links/", api.renew_links, name="api-renew-links"),
    path("matches/<int:id>/seats/<seat:seat>/free/", api.free_seat, name="api-free-seat"),
    path("matches/<int:id>/seats/<seat:seat>/link/", api.seat_link, name="api-seat-link"),
    path("matches/<int:id>/seats/<seat:seat>/claim/", api.claim_seat, name="api-claim-seat"),
    path("matches/<int:id>/seat-requests/", api.seat_requests, name="api-seat-requests"),
    path(
        "matches/<int:id>/seat-requests/<int:request_id>/",
        api.seat_request,
        name="api-seat-request",
    ),
    path("matches/<int:id>/entries/", api.entries, name="api-entries"),
    path("matches/<int:id>/undo/", api.undo, name="api-undo"),
    path("matches/<int:id>/redeal/", api.redeal, name="api-redeal"),
    path("matches/<int:id>/deals/<int:number>/", api.correct, name="api-correct"),
    path("matches/<int:id>/notes/", api.notes, name="api-notes"),
    path("matches/<int:id>/notes/<int:note_id>/", api.note, name="api-note"),
    path("matches/<int:id>/end/", api.end, name="api-end"),
    path("matches/<int:id>/history/", api.history, name="api-history"),
    path("matches/<int:id>/rematch/", api.rematch, name="api-rematch"),
    path("watch/<token:watch_token>/", api.watch, name="api-watch"),
    path("nights/<int:id>/", api.night, name="api-night"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file, not inline,
    # which the Content-Security-Policy would block.
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api/docs.html"),
        name="api-docs",
    ),
    # Anything else under /api/ answers in JSON too, not with the HTML 404 page.
    re_path(r"^", api.not_found),
]
