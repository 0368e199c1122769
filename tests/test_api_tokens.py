"""API tokens can be given back and renewed: DELETE /api/auth/token/ revokes the caller's
token (204, then 401), auth/token/new/ makes a new one (the old stops), logging out of
the site leaves a token alone, and the account's token page says whether there is one
and gives it back."""

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from .pages import browser, text


def with_token(key):
    return APIClient(HTTP_AUTHORIZATION=f"Token {key}")


def test_a_guests_token_given_back_no_longer_works(db):
    made = APIClient().post("/api/auth/guest/", {"name": "Ana"}, format="json").json()["token"]
    assert with_token(made).get("/api/matches/").status_code == 200

    given_back = with_token(made).delete("/api/auth/token/")

    assert given_back.status_code == 204
    assert with_token(made).get("/api/matches/").status_code == 401
    assert not Token.objects.exists()


def test_giving_a_token_back_takes_a_signed_in_caller(db):
    assert APIClient().delete("/api/auth/token/").status_code == 401


def test_a_new_token_replaces_the_old_one(ana):
    old = Token.objects.create(user=ana).key

    answer = with_token(old).post("/api/auth/token/new/", {}, format="json")

    assert answer.status_code == 201
    new = answer.json()["token"]
    assert new != old
    assert with_token(old).get("/api/matches/").status_code == 401
    assert with_token(new).get("/api/matches/").status_code == 200


def test_a_password_gets_a_token_again_after_it_was_given_back(ana):
    first = APIClient().post(
        "/api/auth/token/", {"username": "ana", "password": "sueca-na-mesa-42"}, format="json"
    )
    key = first.json()["token"]
    with_token(key).delete("/api/auth/token/")
    again = APIClient().post(
        "/api/auth/token/", {"username": "ana", "password": "sueca-na-mesa-42"}, format="json"
    )
    assert again.status_code == 200
    assert again.json()["token"] != key


def test_logging_out_of_the_site_leaves_the_token_working(ana):
    key = Token.objects.create(user=ana).key
    site = browser(ana)
    assert site.post("/accounts/logout/").status_code == 302
    assert with_token(key).get("/api/matches/").status_code == 200


def test_the_token_page_says_whether_there_is_one_and_gives_it_back(ana):
    site = browser(ana)
    assert "You have no token" in text(site.get("/accounts/token/"))
    made = text(site.post("/accounts/token/", {"action": "new"}))
    key = Token.objects.get(user=ana).key
    assert key in made
    assert key not in text(site.get("/accounts/token/"))  # shown that once
    assert "You have a token" in text(site.get("/accounts/token/"))

    site.post("/accounts/token/", {"action": "revoke"})

    assert not Token.objects.filter(user=ana).exists()
    assert with_token(key).get("/api/matches/").status_code == 401


def test_the_token_page_refuses_anything_else(ana):
    response = browser(ana).post("/accounts/token/", {"action": "steal"})
    assert response.status_code == 400
    assert not Token.objects.exists()
