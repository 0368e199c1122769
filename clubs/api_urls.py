"""The club endpoints' paths, under /api/ (before the sheet's own)."""

from django.urls import path

from matches import converters  # noqa: F401  (registers the path converters)

from . import api

urlpatterns = [
    path("clubs/", api.clubs, name="api-clubs"),
    path("clubs/<int:id>/", api.club_detail, name="api-club"),
    path("clubs/<int:id>/players/", api.players, name="api-club-players"),
    path("clubs/<int:id>/players/<int:player_id>/", api.player_detail, name="api-club-player"),
    path("clubs/<int:id>/players/<int:player_id>/merge/", api.merge, name="api-club-merge"),
    path(
        "clubs/<int:id>/players/<int:player_id>/link/", api.player_link, name="api-club-player-link"
    ),
    path("clubs/players/link/<token:token>/", api.link, name="api-club-link"),
    path("clubs/<int:id>/organisers/", api.organisers, name="api-club-organisers"),
    path(
        "clubs/<int:id>/organisers/<int:user_id>/", api.organiser_detail, name="api-club-organiser"
    ),
    path("clubs/<int:id>/ratings/", api.club_ratings, name="api-club-ratings"),
    path("clubs/<int:id>/forecast/", api.forecast, name="api-club-forecast"),
    path("clubs/<int:id>/seasons/", api.seasons, name="api-club-seasons"),
    path("clubs/<int:id>/seasons/<int:season_id>/", api.season_detail, name="api-club-season"),
    path("clubs/<int:id>/events/", api.club_events, name="api-club-events"),
    path("clubs/watch/<token:watch_token>/", api.watch, name="api-club-watch"),
    path("clubs/watch/<token:watch_token>/events/", api.watch_events, name="api-club-watch-events"),
]
