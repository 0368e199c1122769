"""End match: any member or the host, after a confirmation."""

from matches.models import Match

from .pages import HTMX, browser, messages_of, text, words


def test_the_confirm_page_asks_first_without_changing_anything(match, maria):
    response = browser(maria).get(f"/matches/{match.pk}/end/")

    assert response.status_code == 200
    assert "End this match now?" in text(response)
    assert f'<form method="post" action="/matches/{match.pk}/end/">' in text(response)
    assert Match.objects.get(pk=match.pk).in_play


def test_the_sheets_end_button_confirms_with_htmx_and_falls_back_to_the_page(match, maria):
    page = words(browser(maria).get(f"/matches/{match.pk}/"))

    assert (
        f'<form method="get" action="/matches/{match.pk}/end/" hx-post="/matches/{match.pk}/end/"'
        ' hx-confirm="End this match now?'
    ) in page


def test_a_member_of_the_losing_side_ends_it(match, ana, maria):
    match.record(ana, deal=1, side="a", games=2)

    response = browser(maria).post(f"/matches/{match.pk}/end/", **HTMX)

    assert response.status_code == 200
    assert "Maria ended the match at" in text(response)
    match.refresh_from_db()
    assert match.status == Match.ENDED
    assert match.ended_by == maria
    assert match.winner == ""


def test_the_host_ends_it_plain(match, ana):
    response = browser(ana).post(f"/matches/{match.pk}/end/")

    assert response.status_code == 302
    assert response["Location"] == f"/matches/{match.pk}/"
    assert Match.objects.get(pk=match.pk).status == Match.ENDED


def test_ending_twice_is_refused(match, ana, ze):
    match.end(ana)

    response = browser(ze).post(f"/matches/{match.pk}/end/", **HTMX)

    assert response.status_code == 409
    assert "ended by Ana" in text(response)
    assert Match.objects.get(pk=match.pk).ended_by == ana


def test_a_won_rubber_cannot_be_ended(match, ze, rui):
    match.record(ze, deal=1, side="b", games=4, sweep=True)

    response = browser(rui).post(f"/matches/{match.pk}/end/")

    assert response.status_code == 302
    assert any("over" in message for message in messages_of(response))
    assert Match.objects.get(pk=match.pk).status == Match.WON


def test_strangers_get_no_confirm_page(match, olga):
    assert browser(olga).get(f"/matches/{match.pk}/end/").status_code == 404
    assert browser().get(f"/matches/{match.pk}/end/").status_code == 404
