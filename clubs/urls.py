"""The club's pages: the club and its roster (``views/roster.py``), a club's rubbers
from the roster (``views/playing.py``), a player's record and the seasons
(``views/records.py``), the board for the café's TV and the exports
(``views/screens.py``)."""

from django.urls import path

from matches import converters  # noqa: F401  (registers the path converters)

from .views import playing, records, roster, screens

CSV, JSON = {"format": "csv"}, {"format": "json"}

urlpatterns = [
    path("clubs/link/<token:token>/", roster.player_link, name="club_player_link"),
    # The club and its roster; its rubbers from the roster
    path("clubs/", roster.clubs, name="clubs"),
    path("clubs/<id:pk>/", roster.club, name="club"),
    path("clubs/<id:pk>/live/", roster.club_live, name="club_live"),
    path("clubs/<id:pk>/roster/", roster.roster, name="club_roster"),
    path("clubs/<id:pk>/roster/players/", roster.add_player, name="club_add_player"),
    path(
        "clubs/<id:pk>/roster/players/<id:player_id>/name/",
        roster.rename_player,
        name="club_rename_player",
    ),
    path(
        "clubs/<id:pk>/roster/players/<id:player_id>/link/",
        roster.hand_link,
        name="club_hand_link",
    ),
    path("clubs/<id:pk>/roster/merge/", roster.merge_players, name="club_merge_players"),
    path("clubs/<id:pk>/roster/organisers/", roster.add_organiser, name="club_add_organiser"),
    path(
        "clubs/<id:pk>/roster/organisers/<id:user_id>/remove/",
        roster.remove_organiser,
        name="club_remove_organiser",
    ),
    path("clubs/<id:pk>/rubber/", playing.club_rubber, name="club_rubber"),
    # A player's record, the seasons, the TV board, the exports
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
