from django.contrib.auth import views as auth_views
from django.urls import path

from . import converters, views  # noqa: F401  (converters: registered)

CSV, JSON = {"format": "csv"}, {"format": "json"}

urlpatterns = [
    path("", views.home, name="home"),
    path("guest/", views.guest, name="guest"),
    path("accounts/login/", views.login_page, name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/keep/", views.keep, name="keep"),
    path("matches/new/", views.new_match, name="new_match"),
    path("matches/<id:pk>/", views.match_page, name="match"),
    path("matches/<id:pk>/sheet/", views.sheet, name="sheet"),
    path("matches/<id:pk>/entries/", views.entry, name="entry"),
    path("matches/<id:pk>/undo/", views.undo, name="undo"),
    path("matches/<id:pk>/deals/<id:number>/", views.correct, name="correct"),
    path("matches/<id:pk>/end/", views.end, name="end"),
    path("matches/<id:pk>/notes/", views.add_note, name="add_note"),
    path(
        "matches/<id:pk>/notes/<id:note_id>/withdraw/",
        views.withdraw_note,
        name="withdraw_note",
    ),
    path("matches/<id:pk>/renew/", views.renew, name="renew"),
    path("matches/<id:pk>/rematch/", views.rematch, name="rematch"),
    path("matches/<id:pk>/calculator/", views.calculator, name="calculator"),
    path("matches/<id:pk>/next/", views.next_rubber, name="next_rubber"),
    path("matches/<id:pk>/export.csv", views.match_export, CSV, name="match_csv"),
    path("matches/<id:pk>/export.json", views.match_export, JSON, name="match_json"),
    path("nights/<id:pk>/", views.night, name="night"),
    path("nights/<id:pk>/export.csv", views.night_export, CSV, name="night_csv"),
    path("nights/<id:pk>/export.json", views.night_export, JSON, name="night_json"),
    path("history/", views.history, name="history"),
    path("history/<id:pk>/", views.rubber, name="rubber"),
    path("standings/", views.standings, name="standings"),
    path("my-data.json", views.my_data, name="my_data"),
    path("join/<token:token>/", views.join, name="join"),
    path("watch/<token:token>/", views.watch, name="watch"),
    path("watch/<token:token>/sheet/", views.watch_sheet, name="watch_sheet"),
]
