"""The club's pages: the club and its roster (``views/roster.py``), a club's rubbers
from the roster (``views/playing.py``), a player's record and the seasons
(``views/records.py``), the board for the café's TV and the exports
(``views/screens.py``)."""

from django.urls import path

from matches import converters  # noqa: F401  (registers the path converters)

from .views import roster

urlpatterns = [
    path("clubs/link/<token:token>/", roster.player_link, name="club_player_link"),
]
