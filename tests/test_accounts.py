"""Getting in: a guest with just a name, an account, and a guest keeping their history."""

from django.contrib.auth import get_user

from matches.models import Match, User

from .pages import browser, messages_of, text


def test_a_guest_gives_just_a_name_and_is_signed_in(db):
    client = browser()

    response = client.post("/guest/", {"name": "  Bia  "})

    assert response.status_code == 302
    assert response["Location"] == "/"
    user = get_user(client)
    assert user.is_authenticated and user.is_guest
    assert user.display_name == "Bia"
    assert not user.has_usable_password()
    assert "New match" in text(client.get("/"))


def test_next_brings_the_guest_back_to_the_join_link(db):
    response = browser().post("/guest/", {"name": "Bia", "next": "/join/abc/"})

    assert response["Location"] == "/join/abc/"


def test_next_never_leaves_the_site(db):
    response = browser().post("/guest/", {"name": "Bia", "next": "https://evil.example/"})

    assert response["Location"] == "/"


def test_a_guest_name_must_be_given_and_short(db):
    for name, why in [
        ("   ", "Your name can&#x27;t be empty."),
        ("x" * 41, "40 characters at most"),
    ]:
        response = browser().post("/guest/", {"name": name})
        assert response.status_code == 400
        assert why in text(response)
    assert not User.objects.exists()


def test_the_home_page_offers_a_guest_name_log_in_and_sign_up(db):
    page = text(browser().get("/"))

    assert 'action="/guest/"' in page
    assert 'href="/accounts/login/"' in page
    assert 'href="/accounts/signup/"' in page


def test_sign_up_makes_an_account_and_signs_in(db):
    client = browser()
    form = {
        "username": "bia",
        "display_name": "Bia",
        "password1": "a-long-sueca-phrase-9",
        "password2": "a-long-sueca-phrase-9",
        "next": "/matches/new/",
    }

    response = client.post("/accounts/signup/", form)

    assert response.status_code == 302
    assert response["Location"] == "/matches/new/"
    user = get_user(client)
    assert (user.username, user.display_name, user.is_guest) == ("bia", "Bia", False)


def test_sign_up_refuses_mismatched_passwords(db):
    form = {"username": "bia", "display_name": "Bia", "password1": "a-long-sueca-phrase-9"}

    response = browser().post("/accounts/signup/", {**form, "password2": "other-phrase-77"})

    assert response.status_code == 400
    assert "errorlist" in text(response)
    assert not User.objects.exists()


def test_log_in_and_out(ana):
    client = browser()

    response = client.post(
        "/accounts/login/",
        {"username": "ana", "password": "sueca-na-mesa-42", "next": "/matches/new/"},
    )
    assert response["Location"] == "/matches/new/"
    assert get_user(client) == ana

    client.post("/accounts/logout/")
    assert not get_user(client).is_authenticated


def test_a_wrong_password_is_refused(ana):
    response = browser().post("/accounts/login/", {"username": "ana", "password": "nope"})

    assert response.status_code == 400
    assert "errorlist" in text(response)


def test_a_guest_keeps_their_history_with_a_username_and_password(db):
    guest = User.create_guest("Bia")
    match = Match.objects.start(
        guest, {"a1": "Bia", "a2": "B", "b1": "C", "b2": "D"}, host_seat="a1"
    )
    client = browser(guest)

    response = client.post(
        "/accounts/keep/",
        {
            "username": "bia",
            "new_password1": "a-long-sueca-phrase-9",
            "new_password2": "a-long-sueca-phrase-9",
        },
    )

    assert response.status_code == 302
    guest.refresh_from_db()
    assert (guest.username, guest.is_guest, guest.display_name) == ("bia", False, "Bia")
    assert guest.check_password("a-long-sueca-phrase-9")
    # Still signed in, and the match is still theirs from a fresh browser.
    assert get_user(client) == guest
    again = browser()
    again.post("/accounts/login/", {"username": "bia", "password": "a-long-sueca-phrase-9"})
    assert again.get(f"/matches/{match.pk}/").status_code == 200


def test_keeping_refuses_a_taken_username(ana):
    guest = User.create_guest("Bia")
    form = {"new_password1": "a-long-sueca-phrase-9", "new_password2": "a-long-sueca-phrase-9"}

    response = browser(guest).post("/accounts/keep/", {**form, "username": "ANA"})

    assert response.status_code == 400
    assert "That username is taken" in text(response)
    guest.refresh_from_db()
    assert guest.is_guest


def test_an_account_with_a_password_has_nothing_to_keep(ana):
    response = browser(ana).get("/accounts/keep/")

    assert response.status_code == 302
    assert "already has a password" in " ".join(messages_of(response))


def test_a_guest_asking_to_sign_up_is_sent_to_keep(db):
    response = browser(User.create_guest("Bia")).get("/accounts/signup/")

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/keep/?next=")


def test_the_language_switch_sets_the_language_and_goes_back(match, ana):
    client = browser(ana)

    page = text(client.get(f"/matches/{match.pk}/"))
    assert 'action="/i18n/setlang/"' in page
    assert f'name="next" value="/matches/{match.pk}/"' in page

    response = client.post("/i18n/setlang/", {"language": "pt-br", "next": f"/matches/{match.pk}/"})

    assert response.status_code == 302
    assert response["Location"] == f"/matches/{match.pk}/"
    assert client.cookies["django_language"].value == "pt-br"
    assert '<html lang="pt-br">' in text(client.get(f"/matches/{match.pk}/"))
