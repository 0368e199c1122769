from django.contrib.auth import views as auth_views
from django.urls import path

from . import limits, night_views, views

CSV, JSON = {"format": "csv"}, {"format": "json"}

urlpatterns = [
    path("", views.home, name="home"),
    path("guest/", views.guest, name="guest"),
    path(
        "accounts/login/",
        limits.limit_posts(limits.LoginThrottle, views.too_many)(auth_views.LoginView.as_view()),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/keep/", views.keep, name="keep"),
    path("matches/new/", views.new_match, name="new_match"),
    path("matches/<int:pk>/", views.match_page, name="match"),
    path("matches/<int:pk>/sheet/", views.sheet, name="sheet"),
    path("matches/<int:pk>/entries/", views.entry, name="entry"),
    path("matches/<int:pk>/undo/", views.undo, name="undo"),
    path("matches/<int:pk>/deals/<int:number>/", views.correct, name="correct"),
    path("matches/<int:pk>/end/", views.end, name="end"),
    path("matches/<int:pk>/notes/", views.add_note, name="add_note"),
    path(
        "matches/<int:pk>/notes/<int:note_id>/withdraw/",
        views.withdraw_note,
        name="withdraw_note",
    ),
    path("matches/<int:pk>/renew/", views.renew, name="renew"),
    path("matches/<int:pk>/rematch/", views.rematch, name="rematch"),
    path("matches/<int:pk>/calculator/", views.calculator, name="calculator"),
    path("matches/<int:pk>/next/", night_views.next_rubber, name="next_rubber"),
    path("matches/<int:pk>/export.csv", night_views.match_export, CSV, name="match_csv"),
    path("matches/<int:pk>/export.json", night_views.match_export, JSON, name="match_json"),
    path("nights/<int:pk>/", night_views.night, name="night"),
    path("nights/<int:pk>/export.csv", night_views.night_export, CSV, name="night_csv"),
    path("nights/<int:pk>/export.json", night_views.night_export, JSON, name="night_json"),
    path("history/", night_views.history, name="history"),
    path("history/<int:pk>/", night_views.rubber, name="rubber"),
    path("standings/", night_views.standings, name="standings"),
    path("my-data.json", night_views.my_data, name="my_data"),
    path("join/<str:token>/", views.join, name="join"),
    path("watch/<str:token>/", views.watch, name="watch"),
    path("watch/<str:token>/sheet/", views.watch_sheet, name="watch_sheet"),
]
