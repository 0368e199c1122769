from django.contrib.auth import views as auth_views
from django.urls import path

from . import converters  # noqa: F401  (registers the path converters)
from .views import accounts, looking_back, offline, table

CSV, JSON = {"format": "csv"}, {"format": "json"}

urlpatterns = [
    path("", table.home, name="home"),
    # Getting in
    path("guest/", accounts.guest, name="guest"),
    path("accounts/login/", accounts.login_page, name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/keep/", accounts.keep, name="keep"),
    # The table
    path("matches/new/", table.new_match, name="new_match"),
    path("matches/<id:pk>/", table.match_page, name="match"),
    path("matches/<id:pk>/sheet/", table.sheet, name="sheet"),
    path("matches/<id:pk>/entries/", table.entry, name="entry"),
    path("matches/<id:pk>/undo/", table.undo, name="undo"),
    path("matches/<id:pk>/redeal/", table.redeal, name="redeal"),
    path("matches/<id:pk>/deals/", table.corrections, name="corrections"),
    path("matches/<id:pk>/deals/<id:number>/", table.correct, name="correct"),
    path("matches/<id:pk>/end/", table.end, name="end"),
    path("matches/<id:pk>/notes/", table.add_note, name="add_note"),
    path(
        "matches/<id:pk>/notes/<id:note_id>/withdraw/",
        table.withdraw_note,
        name="withdraw_note",
    ),
    path("matches/<id:pk>/invite/", table.invite, name="invite"),
    path("matches/<id:pk>/renew/", table.renew, name="renew"),
    path("matches/<id:pk>/seats/<seat:position>/free/", table.free_seat, name="free_seat"),
    path(
        "matches/<id:pk>/seats/<seat:position>/link/", table.make_seat_link, name="seat_link_make"
    ),
    path(
        "matches/<id:pk>/seat-requests/<id:request_id>/",
        table.answer_seat_request,
        name="answer_seat_request",
    ),
    path("matches/<id:pk>/rematch/", table.rematch, name="rematch"),
    path("matches/<id:pk>/calculator/", table.calculator, name="calculator"),
    path("join/<token:token>/", table.join, name="join"),
    path("join/<token:token>/ask/", table.ask_for_seat, name="ask_for_seat"),
    path("seat/<id:pk>/<seat:position>/<token:token>/", table.seat_link, name="seat_link"),
    path("watch/<token:token>/", table.watch, name="watch"),
    path("watch/<token:token>/sheet/", table.watch_sheet, name="watch_sheet"),
    # Looking back
    path("matches/<id:pk>/next/", looking_back.next_rubber, name="next_rubber"),
    path("matches/<id:pk>/export.csv", looking_back.match_export, CSV, name="match_csv"),
    path("matches/<id:pk>/export.json", looking_back.match_export, JSON, name="match_json"),
    path("nights/<id:pk>/", looking_back.night, name="night"),
    path("nights/<id:pk>/export.csv", looking_back.night_export, CSV, name="night_csv"),
    path("nights/<id:pk>/export.json", looking_back.night_export, JSON, name="night_json"),
    path("history/", looking_back.history, name="history"),
    path("history/<id:pk>/", looking_back.rubber, name="rubber"),
    path("standings/", looking_back.standings, name="standings"),
    path("my-data.json", looking_back.my_data, name="my_data"),
    # The installed app: its manifest and its service worker, from the root (views/offline.py)
    path("manifest.webmanifest", offline.manifest, name="manifest"),
    path("sw.js", offline.service_worker, name="service_worker"),
]
