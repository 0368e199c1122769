"""Undo of the latest entry: its author or the host, while nothing came after it."""

from matches.models import Match

from .pages import HTMX, browser, messages_of, text


def undo(user, match, htmx=True):
    return browser(user).post(f"/matches/{match.pk}/undo/", **(HTMX if htmx else {}))


def cells(match):
    return [(deal.a, deal.b) for deal in Match.objects.get(pk=match.pk).deal_list()]


def test_the_author_undoes_their_entry(match, ze):
    match.record(ze, deal=1, side="b", games=1)

    response = undo(ze, match)

    assert response.status_code == 200
    assert cells(match) == []
    assert "Undo" not in text(response)


def test_the_host_undoes_anyones_entry_plain(match, ana, ze):
    match.record(ze, deal=1, side="b", games=0)

    response = undo(ana, match, htmx=False)

    assert response.status_code == 302
    assert cells(match) == []


def test_another_member_cannot_undo_and_is_told_who_can(match, ze, maria):
    match.record(ze, deal=1, side="b", games=1)

    response = undo(maria, match)

    assert response.status_code == 403
    assert "Only Zé" in text(response)
    assert cells(match) == [(0, 1)]


def test_another_member_cannot_undo_plain(match, ze, rui):
    match.record(ze, deal=1, side="b", games=1)

    response = undo(rui, match, htmx=False)

    assert response.status_code == 302
    assert any("Only Zé" in message for message in messages_of(response))
    assert cells(match) == [(0, 1)]


def test_nothing_to_undo(match, ana):
    response = undo(ana, match)

    assert response.status_code == 409
    assert "no entry to undo" in text(response)


def test_undo_after_a_won_rubber_puts_it_back_in_play(match, ze):
    match.record(ze, deal=1, side="b", games=4, sweep=True)

    assert undo(ze, match).status_code == 200

    assert Match.objects.get(pk=match.pk).status == Match.IN_PLAY


def test_undo_after_end_is_refused(match, ze, maria):
    match.record(ze, deal=1, side="b", games=1)
    match.end(maria)

    response = undo(ze, match)

    assert response.status_code == 409
    assert cells(match) == [(0, 1)]


def test_an_undo_on_a_sheet_read_earlier_takes_back_the_entry_standing_now(match, ana, ze):
    # A sheet read for someone who may act keeps what undo would look back on; a change
    # made from it reads that again, under its lock.
    match.record(ze, deal=1, side="b", games=1)
    sheet = Match.objects.for_sheet(acting=True).get(pk=match.pk)
    assert sheet.latest_entry().deal == 1
    before = cells(match)
    Match.objects.get(pk=match.pk).record(ana, deal=2, side="a", games=1)

    sheet.undo(ana)

    assert cells(match) == before  # Ana's deal 2 taken back, Zé's deal 1 left
