from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("matches.api_urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("matches.urls")),
]

handler400 = "matches.views.answers.bad_request"
handler404 = "matches.views.answers.page_not_found"
