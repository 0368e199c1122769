"""POST /api/auth/guest/ and POST /api/auth/token/."""

from rest_framework.authtoken.models import Token

from matches.models import User


def test_guest_gets_an_account_and_a_token(api_as, db):
    response = api_as().post("/api/auth/guest/", {"name": "  Tó   Zé "}, format="json")
    assert response.status_code == 201
    body = response.json()
    user = User.objects.get(pk=body["user"]["id"])
    assert user.is_guest
    assert not user.has_usable_password()
    assert body["user"]["name"] == "Tó Zé"
    assert Token.objects.get(user=user).key == body["token"]


def test_guest_token_signs_in(api_as, db):
    token = api_as().post("/api/auth/guest/", {"name": "Ana"}, format="json").json()["token"]
    client = api_as()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/matches/").status_code == 200


def test_guest_needs_a_name(api_as, db):
    response = api_as().post("/api/auth/guest/", {}, format="json")
    assert response.status_code == 400
    assert response.json()["detail"] == "name: This field is required."
    assert response.json()["errors"] == {"name": ["This field is required."]}
    assert not User.objects.exists()


def test_guest_name_longer_than_a_seat_is_refused(api_as, db):
    response = api_as().post("/api/auth/guest/", {"name": "x" * 41}, format="json")
    assert response.status_code == 400
    assert response.json()["detail"] == "Your name is too long: 40 characters at most."
    assert not User.objects.exists()


def test_guest_name_of_spaces_is_refused(api_as, db):
    response = api_as().post("/api/auth/guest/", {"name": " \t "}, format="json")
    assert response.status_code == 400
    assert response.json()["detail"] == "Your name can't be empty."


def test_token_for_username_and_password(api_as, ana):
    response = api_as().post(
        "/api/auth/token/", {"username": "ana", "password": "sueca-na-mesa-42"}, format="json"
    )
    assert response.status_code == 200
    assert response.json() == {"token": Token.objects.get(user=ana).key}


def test_token_is_the_same_every_time(api_as, ana):
    login = {"username": "ana", "password": "sueca-na-mesa-42"}
    first = api_as().post("/api/auth/token/", login, format="json").json()["token"]
    second = api_as().post("/api/auth/token/", login, format="json").json()["token"]
    assert first == second


def test_token_with_wrong_password_is_refused(api_as, ana):
    response = api_as().post(
        "/api/auth/token/", {"username": "ana", "password": "wrong"}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"detail": "Wrong username or password."}
    assert not Token.objects.exists()


def test_token_without_password_is_refused(api_as, ana):
    response = api_as().post("/api/auth/token/", {"username": "ana"}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"] == {"password": ["This field is required."]}


def test_a_wrong_token_is_401(api_as, db):
    client = api_as()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    response = client.get("/api/matches/")
    assert response.status_code == 401
    assert response.json()["detail"]


def test_not_json_is_a_400_with_detail(api_as, db):
    response = api_as().post("/api/auth/guest/", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert "JSON" in response.json()["detail"]
