"""Revoke notes beside the sheet: add, list, withdraw. They never change the tally."""

from matches.models import Match

from .pages import HTMX, browser, messages_of, text


def note(user, match, htmx=True, **data):
    return browser(user).post(f"/matches/{match.pk}/notes/", data, **(HTMX if htmx else {}))


def withdraw(user, match, note_id, htmx=True):
    path = f"/matches/{match.pk}/notes/{note_id}/withdraw/"
    return browser(user).post(path, **(HTMX if htmx else {}))


def test_a_member_notes_a_revoke_on_the_current_deal(match, ana, ze):
    match.record(ana, deal=1, side="a", games=1)

    response = note(ze, match, side="a", text="Rui revoked: two games off, by hand")

    assert response.status_code == 200
    assert "Eles, deal 2" in text(response)
    assert "Rui revoked: two games off, by hand" in text(response)
    saved = match.notes.get()
    assert (saved.deal, saved.side, saved.author) == (2, "a", ze)
    assert Match.objects.get(pk=match.pk).games_a == 1


def test_the_host_notes_a_revoke_for_an_earlier_deal_plain(match, ana):
    match.record(ana, deal=1, side="a", games=1)

    response = note(ana, match, htmx=False, side="b", deal="1", text="Zé revoked")

    assert response.status_code == 302
    assert match.notes.get().deal == 1


def test_an_empty_or_bad_note_is_refused(match, ze):
    for data, why in [
        ({"side": "a", "text": "  "}, "can&#x27;t be empty"),
        ({"side": "x", "text": "revoke"}, "side must be"),
        ({"side": "a", "text": "revoke", "deal": "9"}, "from 1 to 1"),
        ({"side": "a", "text": "revoke", "deal": "one"}, "whole number"),
    ]:
        response = note(ze, match, **data)
        assert response.status_code == 400, data
        assert why in text(response), data
    assert not match.notes.exists()


def test_the_author_withdraws_a_note(match, ze):
    saved = match.add_note(ze, side="a", text="Rui revoked")

    response = withdraw(ze, match, saved.pk)

    assert response.status_code == 200
    assert "Rui revoked" not in text(response)
    saved.refresh_from_db()
    assert saved.withdrawn


def test_the_host_withdraws_anyones_note_plain(match, ana, ze):
    saved = match.add_note(ze, side="a", text="Rui revoked")

    response = withdraw(ana, match, saved.pk, htmx=False)

    assert response.status_code == 302
    saved.refresh_from_db()
    assert saved.withdrawn


def test_another_member_cannot_withdraw(match, ze, maria):
    saved = match.add_note(ze, side="a", text="Rui revoked")

    response = withdraw(maria, match, saved.pk)

    assert response.status_code == 403
    assert "author or the host" in text(response)
    saved.refresh_from_db()
    assert not saved.withdrawn


def test_withdrawing_a_missing_note_says_so(match, ze):
    response = withdraw(ze, match, 999999)
    assert response.status_code == 404
    assert response["HX-Retarget"] == "#messages"
    assert "no such note" in text(response)

    response = withdraw(ze, match, 999999, htmx=False)
    assert response.status_code == 302
    assert any("no such note" in message for message in messages_of(response))


def test_a_withdrawn_note_cannot_be_withdrawn_again(match, ze):
    saved = match.add_note(ze, side="a", text="Rui revoked")
    match.withdraw_note(ze, saved.pk)

    assert withdraw(ze, match, saved.pk).status_code == 404
