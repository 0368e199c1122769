"""The club's pages: the club and its roster (``views/roster.py``), a club's rubbers
from the roster (``views/playing.py``), a player's record and the seasons
(``views/records.py``), the board for the café's TV and the exports
(``views/screens.py``)."""

from django.urls import path

from matches import converters  # noqa: F401  (registers the path converters)

from .views import records, roster, screens

CSV, JSON = {"format": "csv"}, {"format": "json"}

urlpatterns = [
    path("clubs/link/<token:token>/", roster.player_link, name="club_player_link"),
    # Part B: a player's record, the seasons, the TV board, the exports.
    path("clubs/<id:pk>/players/<id:player_id>/", records.player, name="club_player"),
    path(
        "clubs/<id:pk>/players/<id:player_id>/record/",
        records.player_record,
        name="club_player_record",
    ),
    path(
        "clubs/<id:pk>/players/<id:player_id>.csv",
        records.player_export,
        CSV,
        name="club_player_csv",
    ),
    path(
        "clubs/<id:pk>/players/<id:player_id>.json",
        records.player_export,
        JSON,
        name="club_player_json",
    ),
    path("clubs/<id:pk>/seasons/new/", records.new_season, name="club_new_season"),
    path("clubs/<id:pk>/seasons/<id:season_id>/", records.season, name="club_season"),
    path(
        "clubs/<id:pk>/seasons/<id:season_id>.csv",
        records.season_export,
        CSV,
        name="club_season_csv",
    ),
    path(
        "clubs/<id:pk>/seasons/<id:season_id>.json",
        records.season_export,
        JSON,
        name="club_season_json",
    ),
    path("clubs/<id:pk>/ratings.csv", records.ratings_export, CSV, name="club_ratings_csv"),
    path("clubs/<id:pk>/ratings.json", records.ratings_export, JSON, name="club_ratings_json"),
    path("clubs/board/<token:token>/", screens.board, name="club_board"),
    path("clubs/board/<token:token>/board/", screens.board_fragment, name="club_board_fragment"),
]
