"""The host's rematch after the rubber: the same pairs, straight to the new sheet."""

from matches.models import Match

from .pages import HTMX, browser, messages_of, text


def test_the_host_starts_a_rematch_plain(match, ana, ze):
    match.record(ze, deal=1, side="b", games=4, sweep=True)

    response = browser(ana).post(f"/matches/{match.pk}/rematch/")

    following = Match.objects.exclude(pk=match.pk).get()
    assert response.status_code == 302
    assert response["Location"] == f"/matches/{following.pk}/"
    assert following.night_id == match.night_id
    assert {seat.position: seat.user for seat in following.seats.all()} == {
        seat.position: seat.user for seat in match.seats.all()
    }


def test_the_host_starts_a_rematch_with_htmx(match, ana):
    match.end(ana)

    response = browser(ana).post(f"/matches/{match.pk}/rematch/", **HTMX)

    following = Match.objects.exclude(pk=match.pk).get()
    assert response["HX-Redirect"] == f"/matches/{following.pk}/"


def test_no_rematch_while_the_rubber_is_in_play(match, ana):
    response = browser(ana).post(f"/matches/{match.pk}/rematch/", **HTMX)

    assert response.status_code == 409
    assert "still in play" in text(response)
    assert Match.objects.count() == 1


def test_a_member_cannot_start_a_rematch(match, ana, ze):
    match.end(ana)

    response = browser(ze).post(f"/matches/{match.pk}/rematch/")

    assert response.status_code == 302
    assert any("Only the host" in message for message in messages_of(response))
    assert Match.objects.count() == 1
