"""The host's correction of any deal: both cells at once, under the same rules."""

from matches.models import Match

from .pages import HTMX, browser, messages_of, text


def correct(user, match, number, htmx=True, **data):
    headers = HTMX if htmx else {}
    return browser(user).post(f"/matches/{match.pk}/deals/{number}/", data, **headers)


def cells(match):
    return [(deal.a, deal.b) for deal in Match.objects.get(pk=match.pk).deal_list()]


def test_the_host_corrects_a_deal(match, ana, ze):
    match.record(ze, deal=1, side="b", games=1)

    response = correct(ana, match, 1, a="2", b="0")

    assert response.status_code == 200
    assert cells(match) == [(2, 0)]
    assert "Deal 1 corrected." in text(response)
    assert 'id="sheet"' in text(response)
    # Both numbers are now the host's: Zé never entered that 0.
    deal = Match.objects.get(pk=match.pk).deal_list()[0]
    assert (deal.a_by, deal.b_by) == (ana, ana)


def test_the_host_corrects_plain_and_is_told(match, ana, ze):
    match.record(ze, deal=1, side="b", games=1)

    response = correct(ana, match, 1, htmx=False, a="0", b="2")

    assert response.status_code == 302
    assert cells(match) == [(0, 2)]
    assert "Deal 1 corrected." in messages_of(response)


def test_a_member_cannot_correct(match, ze):
    match.record(ze, deal=1, side="b", games=1)

    response = correct(ze, match, 1, a="0", b="2")

    assert response.status_code == 403
    assert "Only the host" in text(response)
    assert cells(match) == [(0, 1)]


def test_a_correction_breaking_a_rule_is_refused(match, ana, ze):
    match.record(ze, deal=1, side="b", games=1)

    for data, why in [
        ({"a": "1", "b": "1"}, "Only one side"),
        ({"a": "", "b": "1"}, "whole number"),
        ({"a": "0", "b": "9"}, "most is 4"),
        ({"a": "0", "b": "2", "sweep": "on"}, "at least 4"),
    ]:
        response = correct(ana, match, 1, **data)
        assert response.status_code == 400, data
        assert why in text(response), data
    assert cells(match) == [(0, 1)]


def test_a_correction_ending_the_rubber_early_says_which_deals_to_fix(match, ana, ze):
    match.record(ze, deal=1, side="b", games=1)
    match.record(ze, deal=2, side="b", games=1)

    response = correct(ana, match, 1, a="4", b="0", sweep="on")

    assert response.status_code == 400
    assert "correct deal 2 first" in text(response)
    assert cells(match) == [(0, 1), (0, 1)]


def test_no_deal_to_correct_yet(match, ana):
    response = correct(ana, match, 1, a="1", b="0")

    assert response.status_code == 400
    assert "no deal 1" in text(response)


def test_a_correction_can_reopen_a_won_rubber(match, ana, ze):
    match.record(ze, deal=1, side="b", games=4, sweep=True)

    assert correct(ana, match, 1, a="0", b="2").status_code == 200

    assert Match.objects.get(pk=match.pk).status == Match.IN_PLAY
