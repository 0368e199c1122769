"""Entering a deal from the sheet's big buttons and the calculator's tap."""

from matches.models import Match

from .pages import HTMX, browser, messages_of, text


def enter(user, match, htmx=True, **data):
    headers = HTMX if htmx else {}
    return browser(user).post(f"/matches/{match.pk}/entries/", data, **headers)


def cells(match):
    return [(deal.a, deal.b) for deal in Match.objects.get(pk=match.pk).deal_list()]


def test_member_enters_own_side_and_gets_the_fresh_fragment(match, rui):
    response = enter(rui, match, deal=1, side="a", games=1)

    assert response.status_code == 200
    assert text(response).lstrip().startswith('<section id="sheet"')
    assert cells(match) == [(1, 0)]
    assert "Deal 2" in text(response)
    # The old message goes with the sheet it sat in; the calculator's answer is cleared
    # out of band.
    assert '<div id="messages" role="alert"></div>' in text(response)
    assert '<div id="calc-result" role="status" hx-swap-oob="morph"></div>' in text(response)


def twenty_deals_and_a_note(match, ana, ze):
    """Twenty deals played and a note, each written by the match's own methods (so
    nothing of the sheet is kept beside the match)."""
    for number in range(1, 21):
        match.record(ana, deal=number, side="a", games=0)
        match.record(ze, deal=number, side="b", games=0)
    match.add_note(ze, side="a", text="Rui revoked")


def entry_by(phone, match, deal, side, games):
    return phone.post(
        f"/matches/{match.pk}/entries/", {"deal": deal, "side": side, "games": games}, **HTMX
    )


def test_an_entry_reads_the_sheet_once_however_long_the_match(
    match, ana, rui, ze, django_assert_num_queries
):
    twenty_deals_and_a_note(match, ana, ze)
    phone = browser(rui)
    # The session, the user and the match; under its lock the match, what the sheet
    # showed at that version as kept beside it (nothing: the note was added another
    # way), then the sheet: the match's next rubber, its seats, deals and notes, the
    # latest entry and the open requests for a seat; the deal written, the match updated
    # and the event; what the sheet shows, kept beside the match. The answer is that
    # reading, as the entry left it. Three savepoints, the test being in a transaction:
    # the write's and its answer's, and the change's own within it.
    with django_assert_num_queries(19):
        response = entry_by(phone, match, 21, "a", 1)
    assert response.status_code == 200
    page = text(response)
    assert '<span class="cell">1</span><span class="by">Rui</span>' in page
    assert "Rui revoked" in page
    assert "Deal 22" in page
    assert cells(match)[-1] == (1, 0)


def test_an_entry_after_one_through_the_app_reads_only_what_it_checks(
    match, ana, rui, ze, django_assert_num_queries
):
    twenty_deals_and_a_note(match, ana, ze)
    phone = browser(ze)
    assert entry_by(browser(rui), match, 21, "a", 1).status_code == 200
    # Under the lock the match, what the sheet showed at that version (kept by Rui's
    # entry), its seats and its deals: what the entry checks. Nothing else is read, the
    # notes, the history for the undo and the requests for a seat being as kept.
    with django_assert_num_queries(15):
        response = entry_by(phone, match, 22, "b", 2)
    assert response.status_code == 200
    page = text(response)
    assert '<span class="cell">2</span><span class="by">Zé</span>' in page
    assert "Rui revoked" in page
    assert "Deal 23" in page
    assert cells(match)[-2:] == [(1, 0), (0, 2)]


def test_plain_post_enters_and_redirects_to_the_sheet(match, ze):
    response = enter(ze, match, htmx=False, deal=1, side="b", games=2)

    assert response.status_code == 302
    assert response["Location"] == f"/matches/{match.pk}/"
    assert cells(match) == [(0, 2)]


def test_member_cannot_enter_the_other_side(match, rui):
    response = enter(rui, match, deal=1, side="b", games=1)

    assert response.status_code == 403
    assert response["HX-Retarget"] == "#messages"
    assert response["HX-Reswap"] == "innerHTML"
    assert "your own side" in text(response)
    assert cells(match) == []


def test_member_cannot_enter_the_other_side_plain(match, rui):
    response = enter(rui, match, htmx=False, deal=1, side="b", games=1)

    assert response.status_code == 302
    assert any("your own side" in message for message in messages_of(response))
    assert cells(match) == []


def test_host_enters_either_side(match, ana):
    assert enter(ana, match, deal=1, side="b", games=0).status_code == 200
    assert enter(ana, match, deal=1, side="a", games=1).status_code == 200

    assert cells(match) == [(1, 0)]


def test_a_double_entry_is_refused_and_counted_once(match, rui):
    enter(rui, match, deal=1, side="a", games=1)

    response = enter(rui, match, deal=1, side="a", games=1)

    assert response.status_code == 409
    assert "already" in text(response)
    assert cells(match) == [(1, 0)]
    assert Match.objects.get(pk=match.pk).games_a == 1


def test_a_late_phone_is_refused_rather_than_counted_in_another_deal(match, rui, ze):
    enter(rui, match, deal=1, side="a", games=1)
    version = Match.objects.get(pk=match.pk).version

    # Zé's page still showed deal 1: his tap names deal 1, not the current deal 2.
    response = enter(ze, match, deal=1, side="b", games=2)

    assert response.status_code == 409
    assert "Deal 1" in text(response)
    assert cells(match) == [(1, 0)]
    assert Match.objects.get(pk=match.pk).version == version


def test_a_future_deal_is_refused(match, rui):
    response = enter(rui, match, deal=3, side="a", games=1)

    assert response.status_code == 409
    assert "not the current deal" in text(response)
    assert cells(match) == []


def test_impossible_numbers_are_refused_with_the_rules_message(match, rui):
    for games, why in [
        ("-1", "negative"),
        ("1.5", "whole number"),
        ("x", "whole number"),
        ("5", "most is 4"),
    ]:
        response = enter(rui, match, deal=1, side="a", games=games)
        assert response.status_code == 400, games
        assert why in text(response), games
    assert cells(match) == []


def test_missing_fields_are_refused_not_a_500(match, rui):
    for data in [
        {},
        {"deal": "1"},
        {"deal": "1", "side": "c", "games": "1"},
        {"deal": "", "side": "a", "games": "1"},
    ]:
        response = enter(rui, match, **data)
        assert response.status_code == 400, data
        assert 'class="message' in text(response)
    assert cells(match) == []


def test_the_bandeira_button_marks_the_deal_and_wins_on_the_spot(match, ze):
    response = enter(ze, match, deal=1, side="b", games=4, sweep="on")

    assert response.status_code == 200
    match.refresh_from_db()
    assert match.status == Match.WON
    assert match.winner == "b"
    assert "bandeira" in match.marks
    assert "Nós won the rubber, 4 to 0." in text(response)


def test_a_bandeira_worth_less_than_four_is_refused(match, ze):
    response = enter(ze, match, deal=1, side="b", games=2, sweep="on")

    assert response.status_code == 400
    assert "at least 4" in text(response)
    assert cells(match) == []


def test_the_extra_game_is_added_only_when_asked(match, rui, ze):
    enter(rui, match, deal=1, side="a", games=0)
    enter(ze, match, deal=1, side="b", games=0)

    response = enter(ze, match, deal=2, side="b", games=1)
    assert response.status_code == 200
    assert cells(match)[1] == (0, 1)


def test_an_entry_takes_no_extra_games_field_of_its_own(match, rui, ze):
    """The pending extra is in the number entered (the keys and the calculator add it
    in sight); a field that would add more is refused and changes nothing."""
    enter(rui, match, deal=1, side="a", games=0)
    enter(ze, match, deal=1, side="b", games=0)

    response = enter(ze, match, deal=2, side="b", games=1, extra=1)

    assert response.status_code == 400
    assert len(cells(match)) == 1


def test_after_the_rubber_nothing_more_is_entered(match, ze, rui):
    enter(ze, match, deal=1, side="b", games=4, sweep="on")

    response = enter(rui, match, deal=2, side="a", games=1)

    assert response.status_code == 409
    assert "over" in text(response)
    assert len(cells(match)) == 1


def test_entries_are_post_only(match, rui):
    assert browser(rui).get(f"/matches/{match.pk}/entries/").status_code == 405
