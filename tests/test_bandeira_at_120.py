"""Bandeira at 120 (SPEC, Points to games): a house rule under which all 120 points are a
bandeira (4 games) whether or not every trick was taken. Chosen when a match, a night or a
tournament is created (pages and API), kept by rematches and by a night's and a
tournament's rubbers, shown on the sheet, and followed by the sheet's calculator."""

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from matches import rules
from matches.models import Match, Night
from tests.tournaments import PAIRS, tournament_of, win_rubber
from tournaments.models import Tournament

from .conftest import SEAT_NAMES
from .nights import play
from .pages import HTMX, browser, text, words

# The rule ----------------------------------------------------------------------------

REACHABLE = st.integers(0, 120).filter(lambda points: points not in rules.UNREACHABLE_POINTS)


@given(points=REACHABLE)
def test_the_house_rule_changes_nothing_but_120_points(points):
    under_rule = rules.games_for_points(points, bandeira_at_120=True)
    plain = rules.games_for_points(points)
    if points == 120:
        assert (under_rule, plain) == (4, 2)
    else:
        assert under_rule == plain


@given(points=REACHABLE, rule=st.booleans())
def test_every_trick_is_a_bandeira_under_either_rule(points, rule):
    if points == 120:
        assert rules.games_for_points(points, every_trick=True, bandeira_at_120=rule) == 4
    else:
        with pytest.raises(rules.InvalidInput, match="Every trick means all 120 points"):
            rules.games_for_points(points, every_trick=True, bandeira_at_120=rule)


@given(
    counts=st.fixed_dictionaries({rank: st.integers(0, 4) for rank in rules.CARD_VALUES}),
    rule=st.booleans(),
)
def test_the_calculator_counts_the_cards_under_the_rule(counts, rule):
    calculation = rules.calculate(cards=counts, bandeira_at_120=rule)
    points = rules.card_points(**counts)
    assert calculation.points == points
    assert calculation.games == (4 if rule and points == 120 else rules.games_for_points(points))


# The match, its night and its rematches ----------------------------------------------


def at_120(ana, **options):
    match = Match.objects.start(ana, SEAT_NAMES, host_seat="a1", bandeira_at_120=True, **options)
    return Match.objects.for_sheet().get(pk=match.pk)


def test_a_match_opened_with_the_rule_and_its_new_night_keep_it(ana):
    match = at_120(ana)
    assert match.bandeira_at_120 and match.night.bandeira_at_120


def test_by_default_neither_the_match_nor_its_night_play_it(match):
    assert not match.bandeira_at_120 and not match.night.bandeira_at_120


def test_a_rubber_started_in_the_night_plays_the_nights_rule_unless_told(ana):
    night = at_120(ana).night
    assert Match.objects.start(ana, SEAT_NAMES, night=night).bandeira_at_120
    told = Match.objects.start(ana, SEAT_NAMES, night=night, bandeira_at_120=False)
    assert not told.bandeira_at_120


def test_rematches_keep_it_with_the_same_or_other_pairs(ana):
    match = at_120(ana)
    play(match, ana, ("a", 4, "sweep"))
    same = match.rematch(ana)
    play(same, ana, ("b", 4, "sweep"))
    other = same.hand_over(ana, {"a1": "Inês", "a2": "Tiago", "b1": "Carla", "b2": "Nuno"})
    assert same.bandeira_at_120 and other.bandeira_at_120


def test_a_word_that_is_not_yes_or_no_is_refused(ana):
    with pytest.raises(rules.InvalidInput, match="neither"):
        Match.objects.start(ana, SEAT_NAMES, bandeira_at_120="maybe")
    assert not Match.objects.exists() and not Night.objects.exists()


# The tournament ------------------------------------------------------------------------


def test_a_tournament_opened_with_the_rule_passes_it_to_every_rubber(ana):
    tournament = tournament_of(ana, bandeira_at_120=True, mocas_to_win=2)
    assert tournament.bandeira_at_120
    assert all(table.night.bandeira_at_120 for table in tournament.tables.all())
    tournament.start_round(ana)
    first = tournament.progress().rounds[-1].series[0].current_match
    assert Match.objects.get(pk=first).bandeira_at_120
    win_rubber(first, "a")  # the series' next rubber starts by itself
    following = Match.objects.get(previous_id=first)
    assert following.bandeira_at_120


def test_a_tournament_says_its_rule_in_the_api(ana, api_as):
    body = {"name": "Taça", "pairs": PAIRS[:2], "bandeira_at_120": True}
    created = api_as(ana).post("/api/tournaments/", body, format="json").json()
    assert created["bandeira_at_120"] is True
    plain = tournament_of(ana)
    assert api_as(ana).get(f"/api/tournaments/{plain.pk}/").json()["bandeira_at_120"] is False


def test_a_tournament_opened_without_it_plays_120_points_as_2_games(ana):
    tournament = tournament_of(ana)
    tournament.start_round(ana)
    first = tournament.progress().rounds[-1].series[0].current_match
    assert not tournament.bandeira_at_120 and not Match.objects.get(pk=first).bandeira_at_120


# The pages -----------------------------------------------------------------------------

NEW_MATCH = {**SEAT_NAMES, "host_seat": "a1", "first_dealer": "a1", "direction": "counterclockwise"}


def test_the_new_match_page_offers_the_rule_with_a_plain_explanation(ana):
    page = text(browser(ana).get("/matches/new/"))
    field = page[page.index('name="bandeira_at_120"') - 200 :].split("</div>")[0]
    assert 'type="checkbox"' in field and "checked" not in field
    assert "Bandeira at 120" in field
    assert "All 120 points count as a bandeira (4 games), even with a trick lost." in field


def test_the_new_match_page_opens_a_match_and_night_under_the_rule(ana):
    response = browser(ana).post("/matches/new/", {**NEW_MATCH, "bandeira_at_120": "on"})
    assert response.status_code == 302
    match = Match.objects.get()
    assert match.bandeira_at_120 and match.night.bandeira_at_120
    # The next new match starts from the last one's house rules.
    page = text(browser(ana).get("/matches/new/"))
    field = page[page.index('name="bandeira_at_120"') :].split(">")[0]
    assert "checked" in field


def test_the_new_match_page_left_unticked_plays_120_as_2_games(ana):
    assert browser(ana).post("/matches/new/", NEW_MATCH).status_code == 302
    assert not Match.objects.get().bandeira_at_120


def tournament_form(**change):
    return {"name": "Torneio de Natal", "format": "round_robin", "tables": "2",
            "mocas_to_win": "3", "rounds": "", "knockout_size": "",
            "pairs": "Ana & Rui\nZé & Maria\nInês & Tiago\nCarla & Nuno", **change}  # fmt: skip


def test_the_new_tournament_page_offers_and_sets_the_rule(client, ana):
    client.force_login(ana)
    page = text(client.get(reverse("new_tournament")))
    assert 'type="checkbox" name="bandeira_at_120"' in page and "Bandeira at 120" in page
    response = client.post(reverse("new_tournament"), tournament_form(bandeira_at_120="on"))
    assert response.status_code == 302
    assert Tournament.objects.get().bandeira_at_120


def test_the_sheet_says_the_rule_in_its_house_rules(ana, match):
    page = text(browser(ana).get(f"/matches/{at_120(ana).pk}/"))
    assert "House rule: bandeira at 120." in page
    assert "Bandeira at 120: all 120 points are 4 games" in page  # beside the calculator
    assert "House rule: bandeira at 120." not in text(browser(ana).get(f"/matches/{match.pk}/"))


def calculate(user, match, **data):
    return words(browser(user).post(f"/matches/{match.pk}/calculator/", data, **HTMX))


def test_the_sheets_calculator_follows_the_matchs_rule(ana, match):
    assert "Nós: 4 games" in calculate(ana, at_120(ana), points="120")
    assert '<input type="hidden" name="sweep" value="on">' in calculate(
        ana, at_120(ana), points="120"
    )
    assert "Nós: 2 games" in calculate(ana, match, points="120")


# The API -------------------------------------------------------------------------------


def test_the_api_opens_a_match_under_the_rule_and_shows_it(api_as, ana):
    body = {"seats": SEAT_NAMES, "host_seat": "a1", "bandeira_at_120": True}
    created = api_as(ana).post("/api/matches/", body, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["bandeira_at_120"] is True
    night = created.json()["night"]
    # A rubber added to the night plays the night's rule; one may say otherwise.
    added = api_as(ana).post("/api/matches/", {"seats": SEAT_NAMES, "night": night}, format="json")
    assert added.json()["bandeira_at_120"] is True
    body = {"seats": SEAT_NAMES, "night": night, "bandeira_at_120": False}
    assert api_as(ana).post("/api/matches/", body, format="json").json()["bandeira_at_120"] is False


def test_the_api_match_says_false_by_default(api_as, ana, match):
    assert api_as(ana).get(f"/api/matches/{match.pk}/").json()["bandeira_at_120"] is False


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_the_api_refuses_anything_but_true_or_false(api_as, ana, value):
    body = {"seats": SEAT_NAMES, "bandeira_at_120": value}
    response = api_as(ana).post("/api/matches/", body, format="json")
    assert response.status_code == 400
    assert not Match.objects.exists()


def test_the_api_rematch_keeps_it(api_as, ana):
    match = at_120(ana)
    play(match, ana, ("a", 4, "sweep"))
    following = api_as(ana).post(f"/api/matches/{match.pk}/rematch/", {}, format="json")
    assert following.status_code == 201, following.content
    assert following.json()["bandeira_at_120"] is True


@pytest.mark.parametrize(("rule", "games"), [(True, 4), (False, 2)])
def test_the_api_calculator_takes_the_rule(api_as, db, rule, games):
    body = {"points": 120, "bandeira_at_120": rule}
    response = api_as().post("/api/calculator/", body, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["games"] == games
    assert api_as().post("/api/calculator/", {"points": 120}, format="json").json()["games"] == 2


def test_the_api_opens_a_tournament_under_the_rule(api_as, ana):
    body = {"name": "Torneio de Natal", "pairs": PAIRS[:4], "tables": 2, "bandeira_at_120": True}
    response = api_as(ana).post("/api/tournaments/", body, format="json")
    assert response.status_code == 201, response.content
    assert Tournament.objects.get().bandeira_at_120
    rounds = api_as(ana).post(f"/api/tournaments/{response.json()['id']}/rounds/")
    first = rounds.json()["rounds"][0]["series"][0]["current_match"]
    assert api_as(ana).get(f"/api/matches/{first}/").json()["bandeira_at_120"] is True


def test_the_schema_declares_the_rule(api_as, db):
    schema = api_as().get("/api/schema/?format=json").json()["components"]["schemas"]
    assert "bandeira_at_120" in schema["Match"]["required"]
    assert schema["Match"]["properties"]["bandeira_at_120"]["type"] == "boolean"
    assert "bandeira_at_120" in schema["NamedSeatsRequest"]["properties"]
    assert "bandeira_at_120" in schema["ClubPlayersRequest"]["properties"]
    assert "bandeira_at_120" in schema["TournamentCreateRequest"]["properties"]
    assert "bandeira_at_120" in schema["PointsRequest"]["properties"]
