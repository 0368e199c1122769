"""The tournament endpoints' paths, under /api/ (before the sheet's own)."""

from django.urls import path

from matches import converters  # noqa: F401  (registers the path converters)

from . import api

urlpatterns = [
    path("tournaments/", api.tournaments, name="api-tournaments"),
    path("tournaments/<int:id>/", api.tournament_detail, name="api-tournament"),
    path("tournaments/<int:id>/pairs/", api.pairs, name="api-tournament-pairs"),
    path("tournaments/<int:id>/rounds/", api.rounds, name="api-tournament-rounds"),
    path(
        "tournaments/<int:id>/series/<int:series_id>/walkover/",
        api.walkover,
        name="api-tournament-walkover",
    ),
    path("tournaments/<int:id>/negra/", api.negra, name="api-tournament-negra"),
    path("tournaments/<int:id>/end/", api.end, name="api-tournament-end"),
    path("tournaments/<int:id>/events/", api.tournament_events, name="api-tournament-events"),
    path("tournaments/watch/<token:watch_token>/", api.watch, name="api-tournament-watch"),
    path(
        "tournaments/watch/<token:watch_token>/events/",
        api.watch_events,
        name="api-tournament-watch-events",
    ),
    path("tables/<token:table_token>/", api.table, name="api-table"),
]
