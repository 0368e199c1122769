from django.contrib import admin
from django.urls import include, path

from matches import limits
from matches.views.answers import too_many

# The admin's log-in counts against the same limit as the site's own log-ins.
admin_login = limits.limit_posts(limits.LoginThrottle, too_many)(admin.site.login)

urlpatterns = [
    path("admin/login/", admin_login),
    path("admin/", admin.site.urls),
    path("api/", include("clubs.api_urls")),
    path("api/", include("tournaments.api_urls")),
    # Last under /api/: its JSON answer for any other path there.
    path("api/", include("matches.api.urls")),
    # The sheets' pages before the tournaments': their poll is most of the traffic (no
    # path of one is the other's, so the order says nothing else).
    path("", include("matches.urls")),
    path("", include("tournaments.urls")),
    path("", include("clubs.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
]

handler400 = "matches.views.answers.bad_request"
handler404 = "matches.views.answers.page_not_found"
handler500 = "matches.outage.server_error"  # a database out of reach is a 503, wherever it fails
