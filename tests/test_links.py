"""The host's links: renew them, and the old ones stop working."""

from .pages import HTMX, browser, messages_of, text


def test_the_host_renews_the_links(match, ana):
    old_join, old_watch = match.join_token, match.watch_token

    response = browser(ana).post(f"/matches/{match.pk}/renew/", **HTMX)

    assert response.status_code == 200
    match.refresh_from_db()
    assert match.join_token != old_join
    assert match.watch_token != old_watch
    assert "New links made" in text(response)
    invite = text(browser(ana).get(f"/matches/{match.pk}/invite/", **HTMX))
    assert f"/join/{match.join_token}/" in invite
    assert browser().get(f"/join/{old_join}/").status_code == 404


def test_the_host_renews_plain_and_is_told(match, ana):
    response = browser(ana).post(f"/matches/{match.pk}/renew/")

    assert response.status_code == 302
    assert any("New links made" in message for message in messages_of(response))


def test_a_member_cannot_renew(match, ze):
    old = match.join_token

    response = browser(ze).post(f"/matches/{match.pk}/renew/", **HTMX)

    assert response.status_code == 403
    assert "Only the host" in text(response)
    match.refresh_from_db()
    assert match.join_token == old
