"""Melar (seed 002, Brazil): a weak hand thrown in before the first card, and the same
dealer deals again. A house rule chosen when the match is created (page and API),
kept by its rematches, shown on the sheet; the dealer track follows it."""

from hypothesis import given
from hypothesis import strategies as st

from matches import rules, values
from matches.models import Match

from .conftest import SEAT_NAMES
from .pages import browser, text

# The rules -------------------------------------------------------------------------


@given(
    kinds=st.lists(st.sampled_from(["played", "redeal"]), max_size=30),
    first=st.sampled_from(values.SEATS),
    direction=st.sampled_from(values.DIRECTIONS),
)
def test_under_melar_only_a_played_deal_passes_the_deal_on(kinds, first, direction):
    deals = [rules.Deal(redeal=True) if kind == "redeal" else rules.Deal(1, 0) for kind in kinds]
    number = len(deals) + 1
    kept = rules.kept_deals(deals, number, values.SAME_DEALER)
    played = kinds.count("played")
    # The dealer of the next deal is the one the played deals alone bring round.
    brought_round = rules.dealer(played + 1, first, direction)
    assert rules.dealer(number, first, direction, kept) == brought_round
    assert rules.kept_deals(deals, number, values.NEXT_DEALER) == 0


def test_an_unknown_house_rule_is_refused():
    for rule in ("melar", "", None, 1):
        try:
            values.check_redeal_rule(rule)
        except values.InvalidInput as refusal:
            assert "same_dealer" in str(refusal)
        else:
            raise AssertionError(rule)


# The match ------------------------------------------------------------------------


def melar(ana):
    match = Match.objects.start(
        ana, SEAT_NAMES, host_seat="a1", first_dealer="a1", redeal_rule=values.SAME_DEALER
    )
    return Match.objects.for_sheet().get(pk=match.pk)


def test_under_melar_the_same_dealer_deals_again_after_a_redeal(ana):
    match = melar(ana)
    assert match.dealer(1) == "a1"
    match.redeal(ana, deal=1)
    match = Match.objects.for_sheet().get(pk=match.pk)
    assert (match.dealer(2), match.leader(2)) == ("a1", "b1")  # Ana again, Zé leads
    match.record(ana, deal=2, side="a", games=1)
    match = Match.objects.for_sheet().get(pk=match.pk)
    assert match.dealer(3) == "b1"  # a played deal passes it on


def test_by_default_a_redeal_passes_the_deal_on(match, ana):
    match.redeal(ana, deal=1)
    match = Match.objects.for_sheet().get(pk=match.pk)
    assert match.redeal_rule == values.NEXT_DEALER
    assert match.dealer(2) == "b1"


def test_a_rematch_keeps_the_house_rule_and_the_dealer_track(ana):
    match = melar(ana)
    match.redeal(ana, deal=1)
    match.record(ana, deal=2, side="a", games=4, sweep=True)
    following = match.rematch(ana)
    assert following.redeal_rule == values.SAME_DEALER
    # Two rows, one of them a redeal that kept Ana dealing: Zé deals the next deal.
    assert following.first_dealer == "b1"


# The pages and the API ------------------------------------------------------------


def test_the_new_match_page_sets_the_house_rule(ana):
    form = {**SEAT_NAMES, "host_seat": "a1", "first_dealer": "a1",
            "direction": values.CLOCKWISE, "redeal": values.SAME_DEALER}  # fmt: skip
    response = browser(ana).post("/matches/new/", form)
    assert response.status_code == 302
    assert Match.objects.get().redeal_rule == values.SAME_DEALER


def test_the_new_match_page_refuses_an_unknown_house_rule(ana):
    form = {**SEAT_NAMES, "host_seat": "a1", "first_dealer": "a1",
            "direction": values.CLOCKWISE, "redeal": "melar"}  # fmt: skip
    response = browser(ana).post("/matches/new/", form)
    assert response.status_code == 400
    assert "same_dealer" in text(response)
    assert not Match.objects.exists()


def test_the_sheet_says_the_house_rule(ana):
    match = melar(ana)
    page = text(browser(ana).get(f"/matches/{match.pk}/"))
    assert "the same dealer deals again (melar)" in page
    assert "Ana deals again (melar)" in page  # the redeal key's description


def test_the_api_opens_a_match_under_melar_and_shows_it(api_as, ana):
    body = {"seats": SEAT_NAMES, "host_seat": "a1", "redeal": "same_dealer"}
    created = api_as(ana).post("/api/matches/", body, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["redeal"] == "same_dealer"
    match_id = created.json()["id"]
    redealt = api_as(ana).post(f"/api/matches/{match_id}/redeal/", {"deal": 1}, format="json")
    assert (redealt.json()["current_deal"], redealt.json()["dealer"]) == (2, "a1")


def test_the_api_refuses_an_unknown_house_rule(api_as, ana):
    body = {"seats": SEAT_NAMES, "redeal": "melar"}
    response = api_as(ana).post("/api/matches/", body, format="json")
    assert response.status_code == 400
    assert not Match.objects.exists()


def test_the_new_match_menus_name_the_players(ana):
    page = text(browser(ana).get("/matches/new/"))
    # Ana is the host's own name, typed for a1; the other seats say where they are.
    assert '<option value="a1" selected>Ana</option>' in page
    assert "Side A, player 1" not in page.split('id="id_host_seat"')[1].split("</select>")[0]
