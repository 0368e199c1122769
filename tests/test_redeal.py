"""A redeal: a deal dealt again with nothing scored (a weak hand called, a misdeal).

The sheet records it as a row of its own, so the deal passes to the next dealer;
it scores nothing, keeps a pending tie's extra for the next deal played, and is
undone like an entry.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from matches import export, rules, values
from matches.models import Deal, Event, Match, NotAllowed
from matches.rules import Deal as D
from matches.sheet import read

from .pages import HTMX, browser, messages_of, text

REDEAL = D(redeal=True)
TIE = D(0, 0)


# The rules ------------------------------------------------------------------------


def test_a_redeal_is_complete_scores_nothing_and_is_no_tie():
    assert REDEAL.complete
    assert not REDEAL.tie
    assert REDEAL.winner is None
    assert REDEAL.games == 0
    assert rules.running_totals([D(0, 1), REDEAL]) == [{"a": 0, "b": 1}, {"a": 0, "b": 1}]


def test_after_a_redeal_the_next_deal_is_entered_and_the_next_player_deals():
    assert rules.current_deal([REDEAL]) == 2
    assert rules.dealer(rules.current_deal([REDEAL]), "a1", values.COUNTERCLOCKWISE) == "b1"
    assert rules.dealer(rules.current_deal([REDEAL]), "a1", values.CLOCKWISE) == "b2"


@pytest.mark.parametrize(
    ("deals", "extra"),
    [
        ([TIE, REDEAL], 1),
        ([TIE, REDEAL, REDEAL], 1),
        ([TIE, REDEAL, TIE], 2),
        ([TIE, TIE, REDEAL], 2),
        ([REDEAL], 0),
        ([TIE, D(1, 0), REDEAL], 0),
    ],
)
def test_a_redeal_neither_adds_an_extra_nor_breaks_a_run_of_ties(deals, extra):
    assert rules.pending_extra(deals) == extra


def test_after_a_tie_and_a_redeal_the_winner_still_gets_the_extra():
    pending = rules.pending_extra([TIE, REDEAL])
    assert rules.check_games(5, pending) == 5  # a bandeira plus the tie's extra
    entered = rules.enter(None, "a", 2, number=3, pending=pending)
    assert rules.result([TIE, REDEAL, entered]).games == {"a": 2, "b": 0}


def test_redealing_an_empty_deal_gives_a_redeal():
    assert rules.redeal(None, number=1) == REDEAL
    assert rules.redeal(D(), number=1) == REDEAL


@pytest.mark.parametrize(
    ("deal", "says"),
    [
        (REDEAL, "Deal 4 was already dealt again"),
        (D(0, 2), "Deal 4 is already recorded: side B won 2 in it"),
        (TIE, "Deal 4 is already recorded as a tie"),
        (D(None, 0), "Deal 4 already has 0 for side B, so it can't be dealt again: undo"),
        (D(0, None), "Deal 4 already has 0 for side A"),
    ],
)
def test_a_deal_with_anything_on_it_cannot_be_redealt(deal, says):
    with pytest.raises(values.Conflict) as refused:
        rules.redeal(deal, number=4)
    assert refused.value.message.startswith(says)


def test_nothing_can_be_entered_in_a_redealt_deal():
    with pytest.raises(values.Conflict, match="Deal 2 was dealt again"):
        rules.enter(REDEAL, "a", 0, number=2, pending=0)


def test_a_sheet_with_redeals_checks_and_wins_as_without():
    outcome = rules.check_sheet([REDEAL, D(0, 2), REDEAL, D(0, 2)])
    assert (outcome.winner, outcome.won_at, outcome.games) == ("b", 4, {"a": 0, "b": 4})
    assert outcome.marks == ("shutout",)


def test_a_redeal_after_the_winning_deal_is_refused_by_the_sheet_check():
    with pytest.raises(values.InvalidInput, match="deal 2 comes after it"):
        rules.check_sheet([D(0, 4, sweep=True), REDEAL])


played = st.one_of(
    st.just(TIE),
    st.builds(lambda side, games: D(0, 0).with_cell(side, games), st.sampled_from("ab"),
              st.integers(1, 2)),
)  # fmt: skip


@given(st.lists(played, max_size=12), st.data())
def test_redeals_anywhere_change_no_score_no_winner_no_mark_and_no_extra(deals, data):
    spots = data.draw(st.lists(st.integers(0, len(deals)), max_size=5))
    with_redeals = list(deals)
    for spot in sorted(spots, reverse=True):
        with_redeals.insert(spot, REDEAL)

    plain, redealt = rules.result(deals), rules.result(with_redeals)

    assert redealt.games == plain.games
    assert redealt.winner == plain.winner
    assert redealt.marks == plain.marks
    assert rules.pending_extra(with_redeals) == rules.pending_extra(deals)
    # Each redeal uses a row: the deal number moves on by one for each.
    assert rules.current_deal(with_redeals) == rules.current_deal(deals) + len(spots)


# The match -------------------------------------------------------------------------


def fresh(match):
    return Match.objects.for_sheet().get(pk=match.pk)


def test_a_member_records_a_redeal_and_the_next_player_deals(match, ze):
    version = match.version
    row = match.redeal(ze, deal=1)

    match = fresh(match)
    assert (row.number, row.a, row.b, row.redeal) == (1, None, None, True)
    assert match.version == version + 1
    assert (match.games_a, match.games_b, match.status) == (0, 0, Match.IN_PLAY)
    assert rules.current_deal(match.sheet()) == 2
    assert match.dealer(1) == "a1"
    assert match.dealer(2) == "b1"  # counter-clockwise: the player on the right
    event = match.events.get(action=Event.REDEAL)
    assert (event.by_id, event.deal, event.after) == (ze.pk, 1, {"redeal": True})


def test_any_member_of_either_side_and_the_host_may_redeal(match, ana, rui, ze, maria):
    for number, person in enumerate((rui, ze, maria, ana), start=1):
        match.redeal(person, deal=number)
    assert [deal.redeal for deal in fresh(match).deal_list()] == [True] * 4


def test_an_outsider_cannot_redeal(match, olga):
    with pytest.raises(NotAllowed):
        match.redeal(olga, deal=1)
    assert not match.deals.exists()


def test_a_deal_with_a_cell_filled_cannot_be_redealt(match, ze, ana):
    match.record(ze, deal=1, side="b", games=0)
    with pytest.raises(values.Conflict, match="already has 0 for Zé & Maria"):
        match.redeal(ana, deal=1)
    assert [(d.a, d.b, d.redeal) for d in fresh(match).deal_list()] == [(None, 0, False)]


def test_a_second_redeal_of_the_same_deal_is_already_recorded(match, ze, rui):
    match.redeal(ze, deal=1)
    with pytest.raises(values.Conflict, match=r"already dealt again.*nothing was counted twice"):
        match.redeal(rui, deal=1)
    assert match.deals.count() == 1


def test_a_played_deal_cannot_be_redealt_later(match, ze, rui):
    match.record(ze, deal=1, side="b", games=1)
    with pytest.raises(values.Conflict, match="Deal 1 is already recorded: Zé & Maria won 1"):
        match.redeal(rui, deal=1)


def test_only_the_current_deal_can_be_redealt(match, ze):
    with pytest.raises(values.Conflict, match="Deal 3 is not the current deal"):
        match.redeal(ze, deal=3)
    assert not match.deals.exists()


def test_a_late_entry_for_a_redealt_deal_is_refused(match, ze, rui):
    match.redeal(ze, deal=1)
    with pytest.raises(values.Conflict, match="Deal 1 was dealt again: nothing can be entered"):
        match.record(rui, deal=1, side="a", games=1)


def test_a_tie_then_a_redeal_leaves_the_extra_for_the_next_deal(match, ana, ze, rui):
    match.record(ana, deal=1, side="a", games=0)
    match.record(ze, deal=1, side="b", games=0)
    match.redeal(rui, deal=2)

    match.record(rui, deal=3, side="a", games=5, sweep=True)  # 4 + the tie's 1

    assert (fresh(match).games_a, fresh(match).status) == (5, Match.WON)


def test_no_redeal_once_the_rubber_is_won_or_ended(match, ana, ze, maria):
    match.record(ze, deal=1, side="b", games=4, sweep=True)
    with pytest.raises(values.Conflict, match="This rubber is over"):
        match.redeal(ana, deal=2)
    match.undo(ze)
    match.end(maria)
    with pytest.raises(values.Conflict, match="ended by Maria"):
        match.redeal(ana, deal=1)


def test_a_redeal_uses_one_of_the_99_rows(match, ana):
    Deal.objects.bulk_create(
        Deal(match=match, number=number, redeal=True) for number in range(1, rules.MAX_DEALS + 1)
    )
    with pytest.raises(values.Conflict, match="99 deals at most"):
        match.redeal(ana, deal=rules.MAX_DEALS + 1)
    assert not read(fresh(match), ana).may_redeal


def test_a_redeal_on_a_sheet_that_changed_is_refused_with_what_changed(match, ze, rui):
    seen = match.version
    match.add_note(rui, side="b", text="revoked hearts")
    with pytest.raises(values.Conflict, match="Rui noted a revoke in deal 1"):
        match.redeal(ze, deal=1, version=seen)
    assert not match.deals.exists()


def test_undo_takes_back_a_redeal_and_the_deal_comes_back(match, ze, maria):
    match.redeal(ze, deal=1)
    match.undo(ze, deal=1)

    match = fresh(match)
    assert match.deal_list() == []
    assert match.dealer(rules.current_deal(match.sheet())) == "a1"
    undone = match.events.get(action=Event.UNDO)
    assert undone.deal == 1
    assert undone.before["redeal"] is True


def test_undo_steps_back_through_a_redeal_to_the_entry_before(match, ana, ze):
    match.record(ze, deal=1, side="b", games=1)
    match.redeal(ana, deal=2)
    match.undo(ana)
    match.undo(ana)
    assert fresh(match).deal_list() == []


def test_only_the_author_or_the_host_undoes_a_redeal(match, ana, ze, maria):
    match.redeal(ze, deal=1)
    with pytest.raises(NotAllowed, match="Only Zé"):
        match.undo(maria)
    match.undo(ana)
    assert not match.deals.exists()


def test_undo_meant_for_a_side_is_told_the_latest_is_a_redeal(match, ze):
    match.redeal(ze, deal=1)
    with pytest.raises(values.Conflict, match="now Zé's redeal of deal 1, not the one you meant"):
        match.undo(ze, deal=1, side="b")
    assert match.deals.get().redeal


def test_the_host_corrects_a_redeal_into_a_played_deal(match, ana, ze):
    match.redeal(ze, deal=1)
    match.correct(ana, number=1, a=1, b=0)
    row = fresh(match).deals.get()
    assert (row.a, row.b, row.redeal) == (1, 0, False)
    assert match.events.get(action=Event.CORRECTION).before["redeal"] is True


# The sheet --------------------------------------------------------------------------


def test_the_sheet_offers_a_redeal_only_while_the_current_deal_is_empty(match, ana, ze, olga):
    assert read(fresh(match), ze).may_redeal
    assert read(fresh(match), ana).may_redeal
    assert not read(fresh(match), watching=True).may_redeal
    match.record(ze, deal=1, side="b", games=0)
    assert not read(fresh(match), ze).may_redeal
    match.record(ana, deal=1, side="a", games=4, sweep=True)
    assert not read(fresh(match), ana).may_redeal  # the rubber is won


def test_the_sheet_shows_the_redeal_row_and_offers_to_undo_it(match, ana, ze):
    match.redeal(ze, deal=1)
    sheet = read(fresh(match), ana)
    row = sheet.rows[0]
    assert (row.number, row.redeal, row.complete, row.tie, row.dealer_name) == (
        1, True, True, False, "Ana",
    )  # fmt: skip
    assert [cell.games for cell in row.cells] == [None, None]
    assert (sheet.current, sheet.dealer_name) == (2, "Zé")
    assert sheet.undo.redeal
    assert (sheet.undo.deal, sheet.undo.side, sheet.undo.games) == (1, "", None)
    assert sheet.undo.text == "Undo Zé's redeal of deal 1"


def test_an_entry_undo_offer_still_names_its_games(match, ze):
    match.record(ze, deal=1, side="b", games=1)
    undo = read(fresh(match), ze).undo
    assert not undo.redeal
    assert undo.text == "Undo Zé's 1 for Nós in deal 1"


# The page ---------------------------------------------------------------------------


def redeal_page(user, match, deal="1", htmx=True, **more):
    return browser(user).post(
        f"/matches/{match.pk}/redeal/", {"deal": deal, **more}, **(HTMX if htmx else {})
    )


def test_the_sheet_page_has_the_redeal_form_for_the_current_deal(match, rui):
    match.record(rui, deal=1, side="a", games=1)
    page = text(browser(rui).get(f"/matches/{match.pk}/"))
    form = page[page.index('class="redeal"') :].split("</form>")[0]
    assert f'action="/matches/{match.pk}/redeal/"' in form
    assert f'hx-post="/matches/{match.pk}/redeal/"' in form
    assert 'hx-confirm="Deal 2 dealt again, with nothing scored?"' in form
    assert '<input type="hidden" name="deal" value="2">' in form
    assert f'<input type="hidden" name="version" value="{fresh(match).version}">' in form
    assert ">Redeal</button>" in form
    assert "Dealt again: nothing scored, the next player deals." in form


def test_no_redeal_form_once_a_cell_of_the_deal_is_filled(match, rui):
    match.record(rui, deal=1, side="a", games=0)
    assert 'class="redeal"' not in text(browser(rui).get(f"/matches/{match.pk}/"))


def test_a_redeal_by_htmx_answers_the_sheet_with_the_next_dealer(match, maria):
    response = redeal_page(maria, match, version=str(match.version))

    assert response.status_code == 200
    page = text(response)
    assert "Deal 1 dealt again: nothing scored, the next player deals." in page
    assert "Zé deals, Rui leads." in page
    # Undo offers the redeal back: its deal, and no side.
    undo = page[page.index(f'action="/matches/{match.pk}/undo/"') :].split("</form>")[0]
    assert '<input type="hidden" name="deal" value="1">' in undo
    assert '<input type="hidden" name="side" value="">' in undo
    assert fresh(match).deals.get().redeal


def test_the_pages_undo_form_takes_back_a_redeal(match, maria):
    match.redeal(maria, deal=1)
    version = fresh(match).version
    response = browser(maria).post(
        f"/matches/{match.pk}/undo/", {"deal": "1", "side": "", "version": version}, **HTMX
    )
    assert response.status_code == 200
    assert not fresh(match).deals.exists()
    assert 'class="redeal"' in text(response)  # deal 1 may be dealt again once more


def test_a_plain_redeal_redirects_to_the_sheet_with_a_notice(match, maria):
    response = redeal_page(maria, match, htmx=False)

    assert response.status_code == 302
    assert response["Location"] == f"/matches/{match.pk}/"
    assert messages_of(response) == ["Deal 1 dealt again: nothing scored, the next player deals."]


def test_a_refused_redeal_says_why_and_changes_nothing(match, maria, ze):
    match.record(ze, deal=1, side="b", games=2)
    response = redeal_page(maria, match)
    assert response.status_code == 409
    assert "Deal 1 is already recorded" in text(response)
    assert not fresh(match).deals.filter(redeal=True).exists()


def test_a_stranger_gets_no_redeal_page(match, olga):
    assert redeal_page(olga, match).status_code == 404
    assert not match.deals.exists()


def test_the_redeal_form_takes_only_its_own_fields(match, ze):
    response = redeal_page(ze, match, side="b")
    assert response.status_code == 400
    assert not match.deals.exists()


def test_the_rubber_page_shows_the_redeal_and_its_history(match, ze, ana):
    match.redeal(ze, deal=1)
    match.undo(ana)
    match.redeal(ze, deal=1)
    page = text(browser(ze).get(f"/history/{match.pk}/"))
    assert '<td colspan="2" class="redealt">redealt</td>' in page
    assert page.count("recorded a redeal · deal 1") == 2
    assert "undid an entry · deal 1: redealt → …–…" in page


def test_the_csv_marks_a_redeal_row(match, ze):
    match.redeal(ze, deal=1)
    match.record(ze, deal=2, side="b", games=1)
    rows = list(export.deal_rows(export.full(Match.objects.filter(pk=match.pk))))
    assert [row[2:] for row in rows] == [
        [1, "Ana", "Ana & Rui", "", "Zé & Maria", "", "no", "no", 0, 0, "yes", "in play", "", ""],
        [2, "Zé", "Ana & Rui", 0, "Zé & Maria", 1, "no", "no", 0, 1, "no", "in play", "", ""],
    ]


# The API ----------------------------------------------------------------------------


def api_redeal(client, match, body, **headers):
    return client.post(f"/api/matches/{match.pk}/redeal/", body, format="json", **headers)


def test_the_api_records_a_redeal_and_answers_the_match(api_as, match, ze):
    response = api_redeal(api_as(ze), match, {"deal": 1})

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["deals"] == [
        {"number": 1, "a": None, "b": None, "complete": True, "tie": False, "sweep": False,
         "redeal": True, "a_by": None, "b_by": None},
    ]  # fmt: skip
    assert (body["current_deal"], body["dealer"], body["leader"]) == (2, "b1", "a2")
    assert body["pending_extra"] == 0
    assert body["undo"] == {"deal": 1, "side": None, "games": None, "redeal": True, "by": "Zé"}


def test_an_entry_undo_offer_in_the_api_says_it_is_no_redeal(api_as, match, ze):
    match.record(ze, deal=1, side="b", games=1)
    body = api_as(ze).get(f"/api/matches/{match.pk}/").json()
    assert body["undo"] == {"deal": 1, "side": "b", "games": 1, "redeal": False, "by": "Zé"}


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({"deal": 2}, 409, "Deal 2 is not the current deal: the sheet is on deal 1."),
        ({}, 400, "deal: This field is required."),
        ({"deal": "x"}, 400, "The deal must be a whole number."),
        ({"deal": 1, "side": "a"}, 400, "There is no field side here."),
    ],
)
def test_the_api_refuses_a_bad_redeal(api_as, match, ze, body, status, says):
    response = api_redeal(api_as(ze), match, body)
    assert response.status_code == status
    assert response.json()["detail"] == says
    assert not match.deals.exists()


def test_the_api_refuses_a_redeal_of_a_deal_already_recorded(api_as, match, ze, rui):
    match.record(ze, deal=1, side="b", games=1)
    response = api_redeal(api_as(rui), match, {"deal": 1})
    assert response.status_code == 409
    assert response.json()["detail"].startswith("Deal 1 is already recorded: Zé & Maria won 1")


def test_the_api_hides_the_match_from_a_stranger(api_as, match, olga):
    assert api_redeal(api_as(olga), match, {"deal": 1}).status_code == 404
    assert api_redeal(api_as(None), match, {"deal": 1}).status_code in (401, 403)


def test_the_api_takes_the_version_seen_from_if_match(api_as, match, ze, rui):
    etag = api_as(ze).get(f"/api/matches/{match.pk}/")["ETag"]
    match.add_note(rui, side="b", text="revoked")
    response = api_redeal(api_as(ze), match, {"deal": 1}, HTTP_IF_MATCH=etag)
    assert response.status_code == 409
    assert "The sheet changed since you saw it" in response.json()["detail"]


def test_the_api_undoes_a_redeal_and_keeps_it_in_the_history(api_as, match, ze):
    client = api_as(ze)
    api_redeal(client, match, {"deal": 1})

    wrong = client.post(f"/api/matches/{match.pk}/undo/", {"deal": 1, "side": "b"}, format="json")
    assert wrong.status_code == 409
    undone = client.post(f"/api/matches/{match.pk}/undo/", {"deal": 1}, format="json")
    assert undone.status_code == 200
    assert undone.json()["deals"] == []
    assert undone.json()["current_deal"] == 1

    history = client.get(f"/api/matches/{match.pk}/history/").json()
    redeal, undo = history[-2:]
    assert (redeal["action"], redeal["label"], redeal["by"], redeal["deal"]) == (
        "redeal", "recorded a redeal", "Zé", 1,
    )  # fmt: skip
    assert redeal["after"] == {"redeal": True}
    assert (undo["action"], undo["deal"], undo["before"]["redeal"]) == ("undo", 1, True)


def test_a_redeal_sent_again_with_its_key_counts_once(match, ze):
    client = APIClient()  # with a token, as a phone's program sends it
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=ze).key}")
    first = api_redeal(client, match, {"deal": 1}, HTTP_IDEMPOTENCY_KEY="redeal-1")
    again = api_redeal(client, match, {"deal": 1}, HTTP_IDEMPOTENCY_KEY="redeal-1")

    assert first.status_code == again.status_code == 200
    assert again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    assert Event.objects.filter(match=match, action=Event.REDEAL).count() == 1


def test_a_redeal_sent_again_without_a_key_is_already_recorded(api_as, match, ze):
    client = api_redeal(api_as(ze), match, {"deal": 1})
    assert client.status_code == 200
    again = api_redeal(api_as(ze), match, {"deal": 1})
    assert again.status_code == 409
    assert "already dealt again" in again.json()["detail"]


def test_the_schema_describes_the_redeal(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"]["/api/matches/{id}/redeal/"]["post"]
    assert operation["operationId"] == "redeal"
    assert operation["tags"] == ["playing"]
    assert set(operation["responses"]) >= {"200", "400", "401", "403", "404", "409"}
    body = schema["components"]["schemas"]["RedealRequest"]
    assert set(body["properties"]) == {"deal", "version"}
    assert body["required"] == ["deal"]
    assert "redeal" in schema["components"]["schemas"]["Deal"]["required"]


def test_redeals_add_no_query_to_the_sheet(match, ana, ze, api_as):
    def queries(path, client):
        with CaptureQueriesContext(connection) as captured:
            assert client.get(path).status_code == 200
        return len(captured)

    page, api = f"/matches/{match.pk}/", f"/api/matches/{match.pk}/"
    match.redeal(ze, deal=1)
    before = queries(page, browser(ana)), queries(api, api_as(ana))
    for number in range(2, 12):
        match.redeal(ana if number % 2 else ze, deal=number)

    assert (queries(page, browser(ana)), queries(api, api_as(ana))) == before
