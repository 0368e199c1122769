"""The site's routes and a stand-in for the club's TV board (``club_board``), for the
club page's tests while that page is not there."""

from django.http import HttpResponse
from django.urls import include, path

from matches import converters  # noqa: F401  (registers the path converters)

urlpatterns = [
    path("clubs/board/<token:token>/", lambda request, token: HttpResponse(), name="club_board"),
    path("", include("scoresheet.urls")),
]
