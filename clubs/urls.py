"""The club's pages: the club and its roster (``views/roster.py``), a club's rubbers
from the roster (``views/playing.py``), a player's record and the seasons
(``views/records.py``), the board for the café's TV and the exports
(``views/screens.py``)."""

from django.urls import path

from matches import converters  # noqa: F401  (registers the path converters)

from .views import playing, roster

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
]
