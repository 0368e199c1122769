"""The app's URLs and the control: the least a request through the same stack costs."""

from django.http import HttpResponse
from django.urls import path

from scoresheet.urls import handler400, handler404
from scoresheet.urls import urlpatterns as app_urlpatterns

__all__ = ["handler400", "handler404", "urlpatterns"]


def ok(request):
    return HttpResponse("ok")


urlpatterns = [path("bench/ok/", ok), *app_urlpatterns]
