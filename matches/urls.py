from django.contrib.auth import views as auth_views
from django.urls import path

from . import converters  # noqa: F401  (registers the path converters)
from .views import accounts, home, looking_back, offline, playing, seats, sheet

CSV, JSON = {"format": "csv"}, {"format": "json"}
# The host frees a seat, or makes a link for it: one view, told which.
FREE, LINK = {"change": "free"}, {"change": "link"}

urlpatterns = [
    path("", home.home, name="home"),
    # Getting in
    path("guest/", accounts.guest, name="guest"),
    path("accounts/login/", accounts.login_page, name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/keep/", accounts.keep, name="keep"),
    path("accounts/token/", accounts.api_token, name="api_token"),
    # The table
    path("matches/new/", home.new_match, name="new_match"),
    path("matches/<id:pk>/", sheet.match_page, name="match"),
    path("matches/<id:pk>/sheet/", sheet.sheet, name="sheet"),
    path("matches/<id:pk>/entries/", playing.entry, name="entry"),
    path("matches/<id:pk>/undo/", playing.undo, name="undo"),
    path("matches/<id:pk>/redeal/", playing.redeal, name="redeal"),
    path("matches/<id:pk>/deals/", playing.corrections, name="corrections"),
    path("matches/<id:pk>/deals/<id:number>/", playing.correct, name="correct"),
    path("matches/<id:pk>/end/", playing.end, name="end"),
    path("matches/<id:pk>/notes/", playing.add_note, name="add_note"),
    path(
        "matches/<id:pk>/notes/<id:note_id>/withdraw/",
        playing.withdraw_note,
        name="withdraw_note",
    ),
    path("matches/<id:pk>/invite/", seats.invite, name="invite"),
    path("matches/<id:pk>/renew/", seats.renew, name="renew"),
    path("matches/<id:pk>/seats/<seat:position>/free/", seats.change_seat, FREE, name="free_seat"),
    path("matches/<id:pk>/seats/<seat:position>/link/", seats.change_seat, LINK, name="make_link"),
    path(
        "matches/<id:pk>/seat-requests/<id:request_id>/",
        seats.answer_seat_request,
        name="answer_seat_request",
    ),
    path("matches/<id:pk>/rematch/", playing.rematch, name="rematch"),
    path("matches/<id:pk>/calculator/", playing.calculator, name="calculator"),
    path("join/<token:token>/", seats.join, name="join"),
    path("join/<token:token>/ask/", seats.ask_for_seat, name="ask_for_seat"),
    path("seat/<id:pk>/<seat:position>/<token:token>/", seats.seat_link, name="seat_link"),
    path("watch/<token:token>/", sheet.watch, name="watch"),
    path("watch/<token:token>/sheet/", sheet.watch_sheet, name="watch_sheet"),
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
