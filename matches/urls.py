from django.contrib.auth import views as auth_views
from django.urls import path

from . import limits, views

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
    path("join/<str:token>/", views.join, name="join"),
    path("watch/<str:token>/", views.watch, name="watch"),
    path("watch/<str:token>/sheet/", views.watch_sheet, name="watch_sheet"),
]
