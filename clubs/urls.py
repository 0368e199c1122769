"""The club's pages."""

from django.urls import path

from matches import converters  # noqa: F401  (registers the path converters)

from . import views

urlpatterns = [
    path("clubs/link/<token:token>/", views.player_link, name="club_player_link"),
]
