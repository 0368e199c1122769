"""A rubber has at most 99 deals, and no deal number a client sends can overflow."""

import pytest

from matches import rules
from matches.models import Deal, Match, RevokeNote

from .pages import HTMX, browser, text


def tie_out(match, ana, deals):
    """``deals`` tied deals, written straight to the sheet (the rules allow it)."""
    Deal.objects.bulk_create(
        Deal(match=match, number=number, a=0, b=0, a_by=ana, b_by=ana)
        for number in range(1, deals + 1)
    )


def test_the_100th_deal_is_refused_with_a_word_about_end_match(match, ana, api_as):
    tie_out(match, ana, rules.MAX_DEALS)
    response = api_as(ana).post(
        f"/api/matches/{match.pk}/entries/", {"deal": 100, "side": "a", "games": 0}, format="json"
    )
    assert response.status_code == 409
    assert "99 deals at most" in response.json()["detail"]
    assert "end the match" in response.json()["detail"]
    page = browser(ana).post(
        f"/matches/{match.pk}/entries/", {"deal": "100", "side": "a", "games": "0"}, **HTMX
    )
    assert page.status_code == 409
    assert "99 deals at most" in text(page)
    assert not match.deals.filter(number=100).exists()


@pytest.mark.parametrize("deal", [32_768, 40_000, 10**9, 2**63])
def test_huge_deal_numbers_are_refused_not_overflowed(match, ana, api_as, deal):
    client = api_as(ana)
    base = f"/api/matches/{match.pk}"
    for method, path, body in (
        ("post", f"{base}/entries/", {"deal": deal, "side": "a", "games": 1}),
        ("post", f"{base}/notes/", {"side": "b", "deal": deal, "text": "revoked"}),
        ("post", f"{base}/undo/", {"deal": deal, "side": "a"}),
    ):
        response = getattr(client, method)(path, body, format="json")
        assert 400 <= response.status_code < 500, (path, response.content)
    assert client.put(f"{base}/deals/{deal}/", {"a": 1, "b": 0}, format="json").status_code in (
        400,
        404,
    )
    phone = browser(ana)
    for path, body in (
        (f"/matches/{match.pk}/entries/", {"deal": str(deal), "side": "a", "games": "1"}),
        (f"/matches/{match.pk}/notes/", {"side": "b", "deal": str(deal), "text": "x"}),
    ):
        assert 400 <= phone.post(path, body, **HTMX).status_code < 500
    assert not match.deals.exists()
    assert not RevokeNote.objects.exists()
    assert Match.objects.get(pk=match.pk).version == match.version
