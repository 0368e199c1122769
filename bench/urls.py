"""The app's URLs and two views of the bench's own: the control, the least a request
through the same stack costs, and the least an entry can cost (``write``)."""

from django.db import transaction
from django.http import Http404, HttpResponse
from django.urls import path
from rest_framework import status
from rest_framework.decorators import api_view
from rest_framework.response import Response

from matches import signals
from matches.models import Event, Match
from scoresheet.urls import handler400, handler404
from scoresheet.urls import urlpatterns as app_urlpatterns

__all__ = ["handler400", "handler404", "urlpatterns"]


def ok(request):
    return HttpResponse("ok")


@api_view(["POST"])
def write(request, id):
    """What an entry does at the very least, through the API's own stack: the token and
    the JSON body read, then in one transaction the match's row locked, its version
    bumped and an event written, and the change announced once committed (a NOTIFY on
    PostgreSQL); a small answer. No rule checked, no deal written, no sheet read or
    answered: the entry does all this and more, so its ratio stays under this one's."""
    with transaction.atomic():
        current = Match.objects.select_for_update().filter(pk=id).values_list("version", "night")
        if not current:
            raise Http404
        version, night = current[0][0] + 1, current[0][1]
        Match.objects.filter(pk=id).update(version=version)
        Event.objects.create(match_id=id, by=request.user, action=Event.ENTRY, after=request.data)
        changed = Match(pk=id, night_id=night, version=version)
        signals.sheet_changed.send(sender=Match, match=changed, seats=False)
    return Response({"version": version}, status=status.HTTP_201_CREATED)


urlpatterns = [path("bench/ok/", ok), path("bench/write/<int:id>/", write), *app_urlpatterns]
