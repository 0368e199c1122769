"""Playing: entries, undo, corrections, revoke notes, end, history and rematch."""

import pytest

from matches.models import Event, Match, RevokeNote


def url(match, tail=""):
    return f"/api/matches/{match.pk}/{tail}"


def enter(client, match, deal, side, games, **extra):
    body = {"deal": deal, "side": side, "games": games, **extra}
    return client.post(url(match, "entries/"), body, format="json")


def refused(response, status, detail=None):
    """The response is a refusal with this status and a detail sentence."""
    assert response.status_code == status, response.content
    body = response.json()
    assert isinstance(body["detail"], str)
    assert body["detail"]
    if detail is not None:
        assert body["detail"] == detail
    return body


@pytest.fixture
def unchanged(match):
    """Asserts at the end that the match was not touched."""
    version = match.version
    yield
    assert Match.objects.get(pk=match.pk).version == version


# Entries ---------------------------------------------------------------------------


def test_member_enters_their_own_side(api_as, match, rui):
    response = enter(api_as(rui), match, 1, "a", 1)
    assert response.status_code == 201
    body = response.json()
    assert body["deals"] == [
        {"number": 1, "a": 1, "b": 0, "complete": True, "tie": False, "sweep": False,
         "redeal": False, "a_by": "Rui", "b_by": None}
    ]  # fmt: skip
    assert body["sides"]["a"]["games"] == 1
    assert body["current_deal"] == 2
    assert body["version"] == match.version + 1


def test_an_entry_reads_the_sheet_once_however_long_the_match(
    api_as, match, ana, ze, django_assert_num_queries
):
    def count(deal, side, queries):
        with django_assert_num_queries(queries):
            response = enter(api_as(ana), match, deal, side, 0)
        assert response.status_code == 201, response.content
        return response.json()

    # The match, for whom it is; under its lock the match again, what the sheet showed
    # at that version as kept beside it (nothing, the match being new), then the sheet:
    # the row with the next rubber, its seats, deals and notes, what undo would take
    # back and the open requests for a seat; the deal written, the match updated, the
    # event, and what the sheet shows kept beside the match. The answer is that reading,
    # as the entry left it: nothing read again. Four savepoints, as the test runs in a
    # transaction: the write's and its answer's, and the change's own within it.
    body = count(1, "a", 17)
    assert body["deals"][0]["a"] == 0
    match.add_note(ze, side="a", text="Rui revoked")
    for number in range(1, 20):
        match.record(ana, deal=number, side="b", games=0)
        match.record(ana, deal=number + 1, side="a", games=0)
    body = count(20, "b", 17)
    assert len(body["deals"]) == 20
    assert (body["deals"][-1]["a"], body["deals"][-1]["b"]) == (0, 0)
    assert body["current_deal"] == 21
    assert [note["text"] for note in body["notes"]] == ["Rui revoked"]
    assert body["version"] == Match.objects.get(pk=match.pk).version
    # After an entry through the app, under the lock only what the entry checks (the
    # match, its seats and its deals) and what the sheet showed, as that entry kept it.
    body = count(21, "a", 13)
    assert len(body["deals"]) == 21
    assert body["current_deal"] == 21
    assert [note["text"] for note in body["notes"]] == ["Rui revoked"]
    assert body["version"] == Match.objects.get(pk=match.pk).version


def test_host_enters_either_side(api_as, match, ana):
    enter(api_as(ana), match, 1, "b", 0)
    response = enter(api_as(ana), match, 1, "a", 0)
    assert response.status_code == 201
    assert response.json()["deals"][0]["tie"] is True


def test_zero_waits_for_the_other_side(api_as, match, ze):
    body = enter(api_as(ze), match, 1, "b", 0).json()
    assert body["deals"][0]["complete"] is False
    assert body["current_deal"] == 1


def test_a_tie_makes_the_next_deal_worth_an_extra_game(api_as, match, rui, ze):
    enter(api_as(rui), match, 1, "a", 0)
    body = enter(api_as(ze), match, 1, "b", 0).json()
    assert body["pending_extra"] == 1
    body = enter(api_as(ze), match, 2, "b", 2).json()
    assert body["sides"]["b"]["games"] == 2
    assert body["pending_extra"] == 0


def test_a_bandeira_wins_on_the_spot(api_as, match, ze):
    body = enter(api_as(ze), match, 1, "b", 4, sweep=True).json()
    assert body["status"] == "won"
    assert body["winner"] == "b"
    assert body["marks"] == ["bandeira"]
    assert body["deals"][0]["sweep"] is True


def test_member_cannot_enter_other_side(api_as, match, ze, unchanged):
    refused(
        enter(api_as(ze), match, 1, "a", 1),
        403,
        "You can only enter games in your own side's column.",
    )


def test_entry_for_a_deal_that_is_not_current_is_409(api_as, match, rui, unchanged):
    refused(
        enter(api_as(rui), match, 3, "a", 1),
        409,
        "Deal 3 is not the current deal: the sheet is on deal 1.",
    )


def test_a_double_tap_is_already_recorded(api_as, match, ze):
    enter(api_as(ze), match, 1, "b", 0)
    version = Match.objects.get(pk=match.pk).version
    refused(
        enter(api_as(ze), match, 1, "b", 0),
        409,
        "Deal 1 already has 0 for Zé & Maria: it was already recorded, and nothing was "
        "counted twice.",
    )
    assert Match.objects.get(pk=match.pk).version == version


def test_the_second_claim_on_a_deal_names_the_first(api_as, match, rui, ze):
    enter(api_as(rui), match, 1, "a", 2)
    refused(
        enter(api_as(ze), match, 1, "b", 1),
        409,
        "Deal 1 is already claimed: Ana & Rui won 2 in it. Only one side can win games in a deal.",
    )


@pytest.mark.parametrize(
    ("games", "detail"),
    [
        (5, "A deal can't be worth 5 games here: with no tie pending the most is 4."),
        (-1, "Games can't be negative: the sheet only goes upward."),
        (10**30, "A deal can't be worth 1000000000000000000000000000000 games here: with no "
                 "tie pending the most is 4."),
        ("two", "Games must be a whole number."),
        (1.5, "Games must be a whole number."),
        (None, "games: This field may not be null."),
        ([1], "Games must be a whole number."),
    ],
)  # fmt: skip
def test_bad_games_are_refused(api_as, match, rui, unchanged, games, detail):
    refused(enter(api_as(rui), match, 1, "a", games), 400, detail)


def test_a_sweep_under_four_is_refused(api_as, match, rui, unchanged):
    refused(
        enter(api_as(rui), match, 1, "a", 2, sweep=True),
        400,
        "A bandeira (every trick) is worth at least 4 games, not 2.",
    )


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"deal": 1, "side": "c", "games": 1}, "The side must be a or b."),
        ({"side": "a", "games": 1}, "deal: This field is required."),
        ({"deal": 0, "side": "a", "games": 1}, "The deal must be a whole number, 1 or more."),
        ({"deal": 10**30, "side": "a", "games": 1}, None),
    ],
)
def test_bad_entries_are_refused(api_as, match, rui, unchanged, body, detail):
    response = api_as(rui).post(url(match, "entries/"), body, format="json")
    assert response.status_code in (400, 409)
    refused(response, response.status_code, detail)


def test_no_entry_once_the_rubber_is_won(api_as, match, rui):
    enter(api_as(rui), match, 1, "a", 4)
    refused(enter(api_as(rui), match, 2, "a", 1), 409, "This rubber is over: Ana & Rui won it.")


def test_no_entry_once_the_match_is_ended(api_as, match, rui, maria):
    match.end(maria)
    refused(
        enter(api_as(rui), match, 1, "a", 1),
        409,
        "This match was ended by Maria: nothing more can be entered.",
    )


# Undo ------------------------------------------------------------------------------------


def test_author_undoes_the_latest_entry(api_as, match, ze):
    enter(api_as(ze), match, 1, "b", 2)
    response = api_as(ze).post(url(match, "undo/"))
    assert response.status_code == 200
    assert response.json()["deals"] == []
    assert response.json()["sides"]["b"]["games"] == 0


def test_undo_steps_back_one_entry_at_a_time(api_as, match, ana, ze):
    enter(api_as(ze), match, 1, "b", 0)
    enter(api_as(ana), match, 1, "a", 0)
    body = api_as(ana).post(url(match, "undo/")).json()
    assert body["deals"][0]["a"] is None
    assert body["deals"][0]["b"] == 0
    body = api_as(ana).post(url(match, "undo/")).json()
    assert body["deals"] == []


def test_someone_else_cannot_undo(api_as, match, ze, maria):
    enter(api_as(ze), match, 1, "b", 2)
    refused(
        api_as(maria).post(url(match, "undo/")),
        403,
        "Only Zé, who made the latest entry, or the host can undo it.",
    )


def test_nothing_to_undo_is_409(api_as, match, ana, unchanged):
    refused(api_as(ana).post(url(match, "undo/")), 409, "There is no entry to undo.")


# Corrections ------------------------------------------------------------------------------


def correct(client, match, number, body):
    return client.put(url(match, f"deals/{number}/"), body, format="json")


def test_host_corrects_a_deal(api_as, match, ana, rui):
    enter(api_as(rui), match, 1, "a", 2)
    response = correct(api_as(ana), match, 1, {"a": 0, "b": 1})
    assert response.status_code == 200
    body = response.json()
    assert (body["deals"][0]["a"], body["deals"][0]["b"]) == (0, 1)
    assert (body["sides"]["a"]["games"], body["sides"]["b"]["games"]) == (0, 1)


def test_a_correction_puts_a_won_rubber_back_in_play(api_as, match, ana):
    enter(api_as(ana), match, 1, "a", 2)
    enter(api_as(ana), match, 2, "a", 2)
    body = correct(api_as(ana), match, 2, {"a": 1, "b": 0}).json()
    assert body["status"] == "in_play"
    assert body["winner"] is None
    assert body["current_deal"] == 3


def test_a_correction_that_ends_the_rubber_early_is_refused(api_as, match, ana):
    enter(api_as(ana), match, 1, "a", 2)
    enter(api_as(ana), match, 2, "a", 1)
    refused(
        correct(api_as(ana), match, 1, {"a": 4, "b": 0}),
        400,
        "This would end the rubber at deal 1, but deal 2 comes after it: correct deal 2 first.",
    )


@pytest.mark.parametrize(
    ("number", "body", "detail"),
    [
        (2, {"a": 1, "b": 0}, "There is no deal 2 to correct yet."),
        (10**30, {"a": 1, "b": 0}, f"There is no deal {10**30} to correct yet."),
        (1, {"a": 1, "b": 1}, "Only one side can win games in a deal: deal 1 has both."),
        (1, {"a": 9, "b": 0}, "A deal can't be worth 9 games here: with no tie pending the "
                              "most is 4."),
        (1, {"a": 1}, "b: This field is required."),
        (1, {"a": "x", "b": 0}, "Games must be a whole number."),
    ],
)  # fmt: skip
def test_bad_corrections_are_refused(api_as, match, ana, number, body, detail):
    enter(api_as(ana), match, 1, "a", 2)
    version = Match.objects.get(pk=match.pk).version
    refused(correct(api_as(ana), match, number, body), 400, detail)
    assert Match.objects.get(pk=match.pk).version == version


def test_member_cannot_correct(api_as, match, rui):
    enter(api_as(rui), match, 1, "a", 2)
    refused(
        correct(api_as(rui), match, 1, {"a": 1, "b": 0}), 403, "Only the host can correct a deal."
    )


# Revoke notes -------------------------------------------------------------------------------


def test_member_notes_a_revoke_for_the_current_deal(api_as, match, ze):
    response = api_as(ze).post(
        url(match, "notes/"), {"side": "a", "text": "Rui revoked: two off"}, format="json"
    )
    assert response.status_code == 201
    note = response.json()
    assert {k: note[k] for k in ("side", "deal", "text", "author", "withdrawn")} == {
        "side": "a",
        "deal": 1,
        "text": "Rui revoked: two off",
        "author": "Zé",
        "withdrawn": False,
    }
    assert RevokeNote.objects.get(pk=note["id"]).text == "Rui revoked: two off"


def test_a_note_never_changes_the_tally(api_as, match, ana, ze):
    enter(api_as(ana), match, 1, "a", 2)
    api_as(ze).post(url(match, "notes/"), {"side": "a", "deal": 1, "text": "revoke"}, format="json")
    body = api_as(ze).get(url(match)).json()
    assert body["sides"]["a"]["games"] == 2
    assert body["notes"][0]["deal"] == 1


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"side": "a", "text": "   "}, "Say what happened: the note can't be empty."),
        ({"side": "a", "text": "x" * 501}, "A note is too long: 500 characters at most."),
        ({"side": "a", "text": "late", "deal": 2}, "The deal must be a whole number from 1 to 1."),
        ({"side": "z", "text": "who?"}, "The side must be a or b."),
        ({"side": "a", "text": "nul \x00"}, "A note can't contain a NUL character."),
    ],
)
def test_bad_notes_are_refused(api_as, match, ze, unchanged, body, detail):
    refused(api_as(ze).post(url(match, "notes/"), body, format="json"), 400, detail)


def test_author_withdraws_a_note_and_it_stays_in_the_history(api_as, match, ze):
    note = match.add_note(ze, side="a", text="revoke")
    response = api_as(ze).delete(url(match, f"notes/{note.pk}/"))
    assert response.status_code == 204
    assert response.content == b""
    body = api_as(ze).get(url(match)).json()
    assert body["notes"][0]["withdrawn"] is True
    assert body["notes"][0]["withdrawn_at"]
    actions = [event["action"] for event in api_as(ze).get(url(match, "history/")).json()]
    assert actions[-2:] == ["note", "note_withdrawn"]


def test_someone_else_cannot_withdraw_a_note(api_as, match, ze, maria):
    note = match.add_note(ze, side="a", text="revoke")
    refused(
        api_as(maria).delete(url(match, f"notes/{note.pk}/")),
        403,
        "Only the note's author or the host can withdraw it.",
    )


@pytest.mark.parametrize("note_id", ["999", str(10**30)])
def test_no_such_note_is_404(api_as, match, ana, note_id):
    refused(
        api_as(ana).delete(url(match, f"notes/{note_id}/")),
        404,
        "There is no such note in this match.",
    )


def test_a_withdrawn_note_cannot_be_withdrawn_again(api_as, match, ana):
    note = match.add_note(ana, side="b", text="revoke")
    api_as(ana).delete(url(match, f"notes/{note.pk}/"))
    refused(api_as(ana).delete(url(match, f"notes/{note.pk}/")), 404)


def test_a_note_of_another_match_is_404(api_as, match, ana):
    other = Match.objects.start(ana, {"a1": "A", "a2": "B", "b1": "C", "b2": "D"})
    note = other.add_note(ana, side="a", text="elsewhere")
    refused(api_as(ana).delete(url(match, f"notes/{note.pk}/")), 404)


# End -------------------------------------------------------------------------------------------


def test_any_member_ends_the_match(api_as, match, maria):
    response = api_as(maria).post(url(match, "end/"))
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ended"
    assert body["ended_by"] == "Maria"
    assert body["ended_at"]
    assert body["winner"] is None


def test_an_ended_match_cannot_be_ended_again(api_as, match, maria, ana):
    match.end(maria)
    refused(
        api_as(ana).post(url(match, "end/")),
        409,
        "This match was ended by Maria: nothing more can be entered.",
    )


def test_a_won_rubber_cannot_be_ended(api_as, match, ana):
    enter(api_as(ana), match, 1, "b", 4)
    refused(api_as(ana).post(url(match, "end/")), 409, "This rubber is over: Zé & Maria won it.")


# History ---------------------------------------------------------------------------------------


def test_history_lists_every_change_oldest_first(api_as, match, ana, rui, ze):
    enter(api_as(rui), match, 1, "a", 1)
    correct(api_as(ana), match, 1, {"a": 0, "b": 1})
    history = api_as(ze).get(url(match, "history/")).json()
    assert [event["action"] for event in history] == [
        "start", "join", "join", "join", "entry", "correction",
    ]  # fmt: skip
    assert [event["by"] for event in history] == ["Ana", "Rui", "Zé", "Maria", "Rui", "Ana"]
    entry, correction = history[-2:]
    assert entry["deal"] == 1
    assert entry["before"] == {"a": None, "b": None, "sweep": False}
    assert entry["after"] == {"a": 1, "b": 0, "sweep": False, "side": "a"}
    assert correction["before"] == {"a": 1, "b": 0, "sweep": False}
    assert correction["after"] == {"a": 0, "b": 1, "sweep": False}
    assert correction["label"] == "corrected a deal"
    assert correction["at"] >= entry["at"]


def test_history_speaks_the_asked_language(api_as, match, ana):
    history = api_as(ana).get(url(match, "history/"), HTTP_ACCEPT_LANGUAGE="pt-pt").json()
    assert history[0]["action"] == "start"
    assert history[0]["label"]


# Rematch ---------------------------------------------------------------------------------------


def test_host_starts_the_next_rubber_with_partners_swapped(api_as, match, ana, rui, ze):
    enter(api_as(ana), match, 1, "a", 4)
    swap = {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"}
    response = api_as(ana).post(url(match, "rematch/"), {"seats": swap}, format="json")
    assert response.status_code == 201
    body = response.json()
    following = Match.objects.get(pk=body["id"])
    assert following.night_id == match.night_id
    assert [seat["user"] for seat in body["sides"]["a"]["seats"]] == [ana.pk, ze.pk]
    assert [seat["name"] for seat in body["sides"]["b"]["seats"]] == ["Rui", "Maria"]
    assert body["status"] == "in_play"
    # The deal carries on round the table: a1 dealt deal 1, b1 deals next.
    assert body["dealer"] == "b1"
    assert body["join_token"] == following.join_token


def test_rematch_with_null_seats_keeps_the_pairs(api_as, match, ana, maria):
    match.end(maria)
    body = api_as(ana).post(url(match, "rematch/"), {"seats": None}, format="json").json()
    assert body["sides"]["b"]["name"] == "Zé & Maria"
    following = Match.objects.get(pk=body["id"])
    following.end(maria)
    body = api_as(ana).post(url(following, "rematch/"), {}, format="json").json()
    assert body["sides"]["a"]["name"] == "Ana & Rui"


def test_no_rematch_while_the_rubber_is_in_play(api_as, match, ana, unchanged):
    refused(
        api_as(ana).post(url(match, "rematch/"), {"seats": None}, format="json"),
        409,
        "This rubber is still in play: finish it or end it first.",
    )


@pytest.mark.parametrize(
    ("seats", "detail"),
    [
        ({"a1": "a1", "a2": "a1", "b1": "b1", "b2": "b2"}, None),
        ({"a1": "a1"}, None),
        ({"a1": "a1", "a2": "a2", "b1": "b1", "c9": "b2"}, None),
        ({"a1": "x9", "a2": "a2", "b1": "b1", "b2": "b2"}, 'seats.a1: "x9" is not a valid choice.'),
        ("swap", 'seats: Expected a dictionary of items but got type "str".'),
    ],
)
def test_rematch_with_bad_seats_is_refused(api_as, match, ana, maria, seats, detail):
    match.end(maria)
    response = api_as(ana).post(url(match, "rematch/"), {"seats": seats}, format="json")
    body = refused(response, 400, detail)
    if detail is None:
        assert body["detail"] == "Give each of the four seats exactly one of this match's players."
    assert Match.objects.count() == 1


def test_member_cannot_start_a_rematch(api_as, match, rui, maria):
    match.end(maria)
    refused(
        api_as(rui).post(url(match, "rematch/"), {"seats": None}, format="json"),
        403,
        "Only the host can start a rematch.",
    )
    assert not match.events.filter(action=Event.REMATCH).exists()
