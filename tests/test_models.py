"""The model methods: each change, the Event it writes and the version bump; each refusal
changes nothing in the database."""

import re
from contextlib import contextmanager

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction

from matches import rules, values
from matches.models import Deal, Event, Match, Night, NotAllowed, NotFound, RevokeNote, Seat, User

from .conftest import SEAT_NAMES

pytestmark = pytest.mark.django_db

A_NAMES, B_NAMES = "Ana & Rui", "Zé & Maria"


def snapshot():
    """Every row a match method may touch, so a refusal can be shown to touch none."""
    return {
        model.__name__: list(model.objects.order_by("pk").values())
        for model in (Match, Night, Seat, Deal, Event, RevokeNote, User)
    }


@contextmanager
def refused_unchanged(kind, message):
    """The block is refused with ``kind`` and ``message`` and the database is as it was."""
    before = snapshot()
    with pytest.raises(kind, match=re.escape(message)) as caught:
        yield caught
    assert snapshot() == before


def enter(match, by, side, games, sweep=False):
    """An entry for the deal the sheet is on."""
    number = rules.current_deal(match.sheet())
    return match.record(by, deal=number, side=side, games=games, sweep=sweep)


def last_event(match):
    return match.events.order_by("-id").first()


def stored(match):
    return Match.objects.get(pk=match.pk)


@pytest.fixture
def open_match(ana):
    """Ana hosts from seat a1; the other three seats are free."""
    return Match.objects.start(ana, SEAT_NAMES, host_seat="a1")


@pytest.fixture
def won_match(match, ana):
    enter(match, ana, "a", 2)
    enter(match, ana, "a", 2)
    assert match.status == Match.WON
    return match


# Starting a match -------------------------------------------------------------


def test_start_opens_a_match_with_four_seats_a_night_and_an_event(ana):
    match = Match.objects.start(
        ana, SEAT_NAMES, host_seat="a2", direction=values.CLOCKWISE, first_dealer="b1"
    )
    assert match.host == ana
    assert match.status == Match.IN_PLAY
    assert match.version == 1
    assert match.target == 4
    assert (match.direction, match.first_dealer) == (values.CLOCKWISE, "b1")
    assert {seat.position: seat.name for seat in match.seats.all()} == SEAT_NAMES
    assert [seat.user for seat in match.seat_list()] == [None, ana, None, None]
    assert match.night.host == ana
    event = last_event(match)
    assert (event.action, event.by, event.deal) == (Event.START, ana, None)
    assert event.after == {"seats": SEAT_NAMES, "host_seat": "a2"}
    assert match.events.count() == 1


def test_start_tokens_are_unguessable_and_distinct(ana):
    first = Match.objects.start(ana, SEAT_NAMES)
    second = Match.objects.start(ana, SEAT_NAMES)
    tokens = [first.join_token, first.watch_token, second.join_token, second.watch_token]
    assert len(set(tokens)) == 4
    for token in tokens:
        # base64url: 6 bits a character, so 22 characters are at least 128 bits.
        assert re.fullmatch(r"[A-Za-z0-9_-]{22,}", token)


def test_start_adds_the_match_to_the_hosts_night(ana):
    night = Night.objects.create(host=ana, name="Sexta")
    match = Match.objects.start(ana, SEAT_NAMES, night=night)
    assert match.night == night
    assert Night.objects.count() == 1


def test_start_cleans_the_seat_names(ana):
    match = Match.objects.start(ana, {**SEAT_NAMES, "b2": "  Maria   da  Luz "})
    assert match.seats.get(position="b2").name == "Maria da Luz"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"direction": "sideways"}, "The direction must be counterclockwise or clockwise."),
        ({"first_dealer": "c1"}, "The first dealer must be one of the four seats."),
        ({"host_seat": "b3"}, "The host's seat must be one of the four seats, or none."),
        ({"seats": {**SEAT_NAMES, "b1": "  "}}, "Each seat's name can't be empty."),
        ({"seats": {"a1": "Ana", "a2": "Rui", "b1": "Zé"}}, "Each seat's name can't be empty."),
        ({"seats": {**SEAT_NAMES, "a2": "R" * 41}}, "too long: 40 characters at most"),
    ],
)
def test_start_refuses_bad_input_and_creates_nothing(ana, kwargs, message):
    kwargs = {"seats": SEAT_NAMES, **kwargs}
    with refused_unchanged(values.InvalidInput, message):
        Match.objects.start(ana, **kwargs)


def test_start_refuses_another_hosts_night(ana, olga):
    night = Night.objects.create(host=olga, name="Olga's night")
    with refused_unchanged(NotAllowed, "Only the night's host can add a match to it."):
        Match.objects.start(ana, SEAT_NAMES, night=night)


# Guests and who sees what -----------------------------------------------------


def test_create_guest_makes_a_guest_with_just_a_name(db):
    guest = User.create_guest("  Tó   Zé ")
    assert guest.is_guest
    assert guest.display_name == "Tó Zé"
    assert guest.name == "Tó Zé"
    assert not guest.has_usable_password()
    assert User.create_guest("Tó Zé").username != guest.username


@pytest.mark.parametrize(
    ("name", "message"), [("", "Name can't be empty."), ("x" * 41, "Name is too long")]
)
def test_create_guest_refuses_a_bad_name_and_creates_nobody(db, name, message):
    with refused_unchanged(values.InvalidInput, message):
        User.create_guest(name)


def test_visible_to_the_host_and_the_seated_players_only(match, ana, rui, ze, olga):
    elsewhere = Match.objects.start(olga, SEAT_NAMES, host_seat="b2")
    assert list(Match.objects.visible_to(ana)) == [match]
    assert list(Match.objects.visible_to(ze)) == [match]
    assert list(Match.objects.visible_to(olga)) == [elsewhere]
    assert not Match.objects.visible_to(AnonymousUser()).exists()
    elsewhere.join(rui, token=elsewhere.join_token, position="a1")
    assert set(Match.objects.visible_to(rui)) == {match, elsewhere}


def test_visible_to_lists_a_match_once_when_the_host_is_also_seated(match, ana):
    assert Match.objects.visible_to(ana).count() == 1


# Joining ----------------------------------------------------------------------


def test_join_takes_a_free_seat(open_match, rui):
    seat = open_match.join(rui, token=open_match.join_token, position="a2", name="Rui Costa")
    assert (seat.user, seat.name) == (rui, "Rui Costa")
    assert open_match.seat_of(rui).position == "a2"
    assert open_match.version == 2
    assert stored(open_match).version == 2
    event = last_event(open_match)
    assert (event.action, event.by) == (Event.JOIN, rui)
    assert event.before == {"name": "Rui"}
    assert event.after == {"seat": "a2", "name": "Rui Costa"}


def test_join_without_a_name_keeps_the_seats_name(open_match, ze):
    open_match.join(ze, token=open_match.join_token, position="b1")
    assert open_match.seats.get(position="b1").name == "Zé"


def test_join_with_a_wrong_token_is_refused(open_match, rui):
    with refused_unchanged(NotAllowed, "This join link is not valid any more"):
        open_match.join(rui, token="guess", position="a2")


def test_join_with_the_old_token_after_renew_is_refused(open_match, ana, rui):
    old = open_match.join_token
    open_match.renew_links(ana)
    with refused_unchanged(NotAllowed, "ask the host for the new one"):
        open_match.join(rui, token=old, position="a2")


def test_join_a_taken_seat_is_refused_naming_its_holder(match, olga):
    with refused_unchanged(values.Conflict, "That seat is taken by Zé."):
        match.join(olga, token=match.join_token, position="b1")


def test_join_twice_is_refused(open_match, rui):
    open_match.join(rui, token=open_match.join_token, position="a2")
    with refused_unchanged(values.Conflict, "You already hold a seat in this match."):
        open_match.join(rui, token=open_match.join_token, position="b2")


def test_join_an_unknown_seat_is_refused(open_match, rui):
    with refused_unchanged(values.InvalidInput, "Pick one of the four seats."):
        open_match.join(rui, token=open_match.join_token, position="c1")


def test_join_an_ended_match_is_refused(open_match, ana, rui):
    open_match.end(ana)
    with refused_unchanged(values.Conflict, "This match was ended by Ana"):
        open_match.join(rui, token=open_match.join_token, position="a2")


# Recording an entry -----------------------------------------------------------


def test_record_fills_the_cell_completes_the_deal_and_writes_an_event(match, rui):
    version = match.version
    row = match.record(rui, deal=1, side="a", games=2)
    row.refresh_from_db()
    assert (row.number, row.a, row.b, row.sweep) == (1, 2, 0, False)
    assert row.a_by == rui
    assert row.b_by is None
    assert match.version == version + 1
    assert stored(match).version == version + 1
    assert (match.games_a, match.games_b, match.status) == (2, 0, Match.IN_PLAY)
    event = last_event(match)
    assert (event.action, event.by, event.deal) == (Event.ENTRY, rui, 1)
    assert event.before == {"a": None, "b": None, "sweep": False}
    assert event.after == {"a": 2, "b": 0, "sweep": False, "side": "a"}


def test_zero_from_each_side_is_a_tie_and_each_entry_is_an_event(match, rui, maria):
    match.record(rui, deal=1, side="a", games=0)
    assert match.deals.get().complete is False
    match.record(maria, deal=1, side="b", games=0)
    row = match.deals.get()
    assert row.tie
    assert (row.a_by, row.b_by) == (rui, maria)
    event = last_event(match)
    assert (event.by, event.before, event.after) == (
        maria,
        {"a": 0, "b": None, "sweep": False},
        {"a": 0, "b": 0, "sweep": False, "side": "b"},
    )
    assert match.events.filter(action=Event.ENTRY).count() == 2
    assert rules.current_deal(match.sheet()) == 2


def test_host_may_enter_either_sides_column(match, ana):
    match.record(ana, deal=1, side="b", games=1)
    row = match.deals.get()
    assert (row.a, row.b, row.b_by) == (0, 1, ana)


def test_tie_then_an_entry_with_its_extra_game(match, rui, ze):
    match.record(rui, deal=1, side="a", games=0)
    match.record(ze, deal=1, side="b", games=0)
    with refused_unchanged(values.InvalidInput, "with 1 extra pending the most is 5."):
        match.record(ze, deal=2, side="b", games=6)
    match.record(ze, deal=2, side="b", games=2)
    assert (match.games_a, match.games_b) == (0, 2)
    assert match.deals.get(number=2).sweep is False


def test_reaching_4_wins_the_rubber(match, rui, ze):
    enter(match, rui, "a", 2)
    enter(match, ze, "b", 1)
    version = match.version
    enter(match, rui, "a", 2)
    assert (match.status, match.winner) == (Match.WON, "a")
    assert (match.games_a, match.games_b) == (4, 1)
    assert match.marks == ["chapeu"]
    assert match.version == version + 1


def test_a_bandeira_wins_on_the_spot(match, ze):
    enter(match, ze, "b", 4, sweep=True)
    assert (match.status, match.winner, match.marks) == (Match.WON, "b", ["bandeira"])
    assert match.deals.get().sweep


def test_member_cannot_enter_other_side(match, ze):
    with refused_unchanged(NotAllowed, "You can only enter games in your own side's column."):
        match.record(ze, deal=1, side="a", games=1)


def test_outsider_cannot_enter(match, olga):
    with refused_unchanged(NotAllowed, "Only the host or a player seated in this match"):
        match.record(olga, deal=1, side="a", games=1)


def test_entering_after_a_win_is_refused(won_match, ana, ze):
    with refused_unchanged(values.Conflict, f"This rubber is over: {A_NAMES} won it."):
        won_match.record(ze, deal=3, side="b", games=1)
    with refused_unchanged(values.Conflict, "This rubber is over"):
        won_match.record(ana, deal=3, side="a", games=0)


def test_entering_after_end_is_refused(match, rui, maria):
    match.end(maria)
    with refused_unchanged(values.Conflict, "This match was ended by Maria"):
        match.record(rui, deal=1, side="a", games=1)


def test_entry_for_a_past_deal_is_refused_as_already_recorded(match, rui, ze):
    match.record(rui, deal=1, side="a", games=1)
    with refused_unchanged(values.Conflict, f"Deal 1 already has 1 for {A_NAMES}"):
        match.record(rui, deal=1, side="a", games=1)


def test_second_claim_in_a_deal_is_refused_naming_the_first(match, rui, ze):
    match.record(rui, deal=1, side="a", games=2)
    with refused_unchanged(values.Conflict, f"Deal 1 is already claimed: {A_NAMES} won 2 in it."):
        match.record(ze, deal=1, side="b", games=1)


def test_entry_for_a_future_deal_is_refused(match, rui):
    match.record(rui, deal=1, side="a", games=1)
    with refused_unchanged(
        values.Conflict, "Deal 3 is not the current deal: the sheet is on deal 2."
    ):
        match.record(rui, deal=3, side="a", games=1)


def test_same_cell_twice_in_the_current_deal_is_refused(match, rui, ana):
    match.record(rui, deal=1, side="a", games=0)
    with refused_unchanged(values.Conflict, "already recorded"):
        match.record(ana, deal=1, side="a", games=0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"games": 5}, "with no tie pending the most is 4."),
        ({"games": -1}, "Games can't be negative"),
        ({"games": "two"}, "Games must be a whole number."),
        ({"games": 1.5}, "Games must be a whole number."),
        ({"games": 2, "sweep": True}, "A bandeira (every trick) is worth at least 4 games"),
        ({"side": "c"}, "The side must be a or b."),
        ({"deal": 0}, "The deal must be a whole number, 1 or more."),
        ({"deal": "first"}, "The deal must be a whole number."),
    ],
)
def test_record_refuses_bad_input(match, ana, kwargs, message):
    kwargs = {"deal": 1, "side": "a", "games": 1, **kwargs}
    with refused_unchanged(values.InvalidInput, message):
        match.record(ana, **kwargs)


# Undo -------------------------------------------------------------------------


def test_undo_takes_back_the_latest_entry(match, rui):
    match.record(rui, deal=1, side="a", games=2)
    version = match.version
    match.undo(rui)
    assert not match.deals.exists()
    assert (match.games_a, match.games_b) == (0, 0)
    assert match.version == version + 1
    event = last_event(match)
    assert (event.action, event.by, event.deal) == (Event.UNDO, rui, 1)
    assert event.before == {"a": 2, "b": 0, "sweep": False}
    assert event.after == {"a": None, "b": None, "sweep": False}
    # The entry itself stays in the history.
    assert match.events.filter(action=Event.ENTRY).count() == 1


def test_undo_of_the_second_entry_of_a_deal_keeps_the_first(match, rui, maria):
    match.record(rui, deal=1, side="a", games=0)
    match.record(maria, deal=1, side="b", games=0)
    match.undo(maria)
    row = match.deals.get()
    assert (row.a, row.b, row.a_by, row.b_by) == (0, None, rui, None)
    assert rules.current_deal(match.sheet()) == 1


def test_undo_steps_back_entry_by_entry(match, ana, rui, ze, maria):
    enter(match, rui, "a", 0)
    enter(match, maria, "b", 0)
    enter(match, ze, "b", 2)
    match.undo(ana)
    assert match.sheet() == [rules.Deal(0, 0)]
    match.undo(ana)
    assert match.sheet() == [rules.Deal(0, None)]
    match.undo(ana)
    assert match.sheet() == []
    assert match.events.filter(action=Event.UNDO).count() == 3
    with refused_unchanged(values.Conflict, "There is no entry to undo."):
        match.undo(ana)


def test_undo_of_a_winning_entry_puts_the_rubber_back_in_play(won_match, ana):
    won_match.undo(ana)
    assert (won_match.status, won_match.winner, won_match.marks) == (Match.IN_PLAY, "", [])
    assert (won_match.games_a, won_match.games_b) == (2, 0)
    enter(won_match, ana, "b", 1)
    assert won_match.games_b == 1


def test_host_may_undo_anybodys_entry(match, ana, ze):
    match.record(ze, deal=1, side="b", games=1)
    match.undo(ana)
    assert not match.deals.exists()
    assert last_event(match).by == ana


def test_undo_by_someone_other_than_the_author_is_refused(match, rui, ze, maria):
    match.record(ze, deal=1, side="b", games=1)
    for someone in (maria, rui):
        with refused_unchanged(NotAllowed, "Only Zé, who made the latest entry, or the host"):
            match.undo(someone)


def test_undo_by_an_outsider_is_refused(match, rui, olga):
    match.record(rui, deal=1, side="a", games=1)
    with refused_unchanged(NotAllowed, "Only the host or a player seated in this match can undo."):
        match.undo(olga)


def test_undo_with_nothing_to_undo_is_refused(match, ana):
    with refused_unchanged(values.Conflict, "There is no entry to undo."):
        match.undo(ana)


def test_undo_after_a_correction_is_refused(match, ana, rui):
    match.record(rui, deal=1, side="a", games=1)
    match.correct(ana, number=1, a=2, b=0)
    with refused_unchanged(values.Conflict, "The host corrected deal 1 after the latest entries"):
        match.undo(rui)


def test_undo_in_an_ended_match_is_refused(match, ana, rui):
    match.record(rui, deal=1, side="a", games=1)
    match.end(rui)
    with refused_unchanged(values.Conflict, "This match was ended by Rui"):
        match.undo(ana)


# Corrections ------------------------------------------------------------------


def test_correct_sets_both_cells_and_writes_an_event(match, ana, rui, ze):
    enter(match, rui, "a", 2)
    enter(match, ze, "b", 1)
    version = match.version
    match.correct(ana, number=1, a=0, b=0)
    assert match.sheet() == [rules.Deal(0, 0), rules.Deal(0, 1)]
    assert (match.games_a, match.games_b) == (0, 1)
    assert match.version == version + 1
    event = last_event(match)
    assert (event.action, event.by, event.deal) == (Event.CORRECTION, ana, 1)
    assert event.before == {"a": 2, "b": 0, "sweep": False}
    assert event.after == {"a": 0, "b": 0, "sweep": False}


def test_correct_completes_a_half_entered_deal(match, ana, rui):
    enter(match, rui, "a", 0)
    match.correct(ana, number=1, a=0, b=3)
    assert match.sheet() == [rules.Deal(0, 3)]
    assert rules.current_deal(match.sheet()) == 2


def test_a_won_rubber_corrected_back_into_play(won_match, ana):
    won_match.correct(ana, number=2, a=1, b=0)
    assert (won_match.status, won_match.winner, won_match.marks) == (Match.IN_PLAY, "", [])
    assert (won_match.games_a, won_match.games_b) == (3, 0)
    enter(won_match, ana, "a", 1)
    assert (won_match.status, won_match.marks) == (Match.WON, ["shutout"])


def test_correction_by_a_member_is_refused(match, rui):
    enter(match, rui, "a", 1)
    with refused_unchanged(NotAllowed, "Only the host can correct a deal."):
        match.correct(rui, number=1, a=2, b=0)


def test_correction_by_an_outsider_is_refused(match, rui, olga):
    enter(match, rui, "a", 1)
    with refused_unchanged(NotAllowed, "Only the host can correct a deal."):
        match.correct(olga, number=1, a=2, b=0)


def test_correction_that_ends_the_rubber_early_is_refused(match, ana, rui, ze):
    enter(match, rui, "a", 2)
    enter(match, ze, "b", 1)
    enter(match, rui, "a", 1)
    with refused_unchanged(
        values.InvalidInput,
        "This would end the rubber at deal 1, but deals 2–3 come after it: "
        "correct deals 2–3 first.",
    ):
        match.correct(ana, number=1, a=4, b=0, sweep=True)


def test_correction_over_the_cell_limit_is_refused(match, ana, rui):
    enter(match, rui, "a", 1)
    with refused_unchanged(values.InvalidInput, "with no tie pending the most is 4."):
        match.correct(ana, number=1, a=5, b=0)


def test_correction_that_takes_away_a_later_deals_extra_is_refused(match, ana, rui, ze):
    enter(match, rui, "a", 0)
    enter(match, ze, "b", 0)
    enter(match, rui, "a", 5, sweep=True)  # a bandeira and the tie's extra game
    with refused_unchanged(values.InvalidInput, "with no tie pending the most is 4."):
        match.correct(ana, number=1, a=0, b=1)
    match.correct(ana, number=2, a=4, b=0, sweep=True)
    match.correct(ana, number=1, a=0, b=1)
    assert (match.games_a, match.games_b, match.winner) == (4, 1, "a")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"a": 1, "b": 1}, "Only one side can win games in a deal: deal 1 has both."),
        ({"a": -1, "b": 0}, "Games can't be negative"),
        ({"a": 2, "b": 0, "sweep": True}, "A bandeira (every trick) is worth at least 4"),
        ({"number": 2}, "There is no deal 2 to correct yet."),
        ({"number": 0}, "The deal must be a whole number, 1 or more."),
    ],
)
def test_correction_refuses_bad_input(match, ana, rui, kwargs, message):
    enter(match, rui, "a", 1)
    kwargs = {"number": 1, "a": 2, "b": 0, **kwargs}
    with refused_unchanged(values.InvalidInput, message):
        match.correct(ana, **kwargs)


def test_correction_of_an_ended_match_is_refused(match, ana, rui):
    enter(match, rui, "a", 1)
    match.end(ana)
    with refused_unchanged(values.Conflict, "This match was ended by Ana"):
        match.correct(ana, number=1, a=2, b=0)


# Ending a rubber --------------------------------------------------------------


def test_any_member_may_end_the_rubber_and_nobody_wins_it(match, rui, ze):
    enter(match, rui, "a", 3)
    version = match.version
    match.end(ze)
    assert (match.status, match.winner, match.ended_by) == (Match.ENDED, "", ze)
    assert match.ended_at is not None
    assert (match.games_a, match.games_b) == (3, 0)
    assert match.version == version + 1
    event = last_event(match)
    assert (event.action, event.by, event.after) == (Event.END, ze, {"games": {"a": 3, "b": 0}})


def test_host_without_a_seat_may_end_the_rubber(rui):
    hosted = Match.objects.start(rui, SEAT_NAMES)
    hosted.end(rui)
    assert stored(hosted).status == Match.ENDED


def test_end_by_an_outsider_is_refused(match, olga):
    with refused_unchanged(NotAllowed, "Only the host or a player seated in this match can end"):
        match.end(olga)


def test_end_twice_is_refused(match, maria, ana):
    match.end(maria)
    with refused_unchanged(values.Conflict, "This match was ended by Maria"):
        match.end(ana)


def test_end_a_won_rubber_is_refused(won_match, ze):
    with refused_unchanged(values.Conflict, "This rubber is over"):
        won_match.end(ze)


# Revoke notes -----------------------------------------------------------------


def test_add_note_for_the_current_deal_changes_no_tally(match, rui, ze):
    enter(match, rui, "a", 2)
    version = match.version
    note = match.add_note(ze, side="a", text="  Nós   revoked: two games off,\nkept by hand ")
    assert (note.author, note.side, note.deal) == (ze, "a", 2)
    assert note.text == "Nós revoked: two games off, kept by hand"
    assert not note.withdrawn
    assert (match.games_a, match.games_b) == (2, 0)
    assert match.version == version + 1
    event = last_event(match)
    assert (event.action, event.by, event.deal) == (Event.NOTE, ze, 2)
    assert event.after == {"note": note.pk, "side": "a", "text": note.text}


def test_add_note_for_a_past_deal(match, ana, rui):
    enter(match, rui, "a", 1)
    enter(match, rui, "a", 1)
    assert match.add_note(ana, side="b", text="revoke", deal=1).deal == 1


def test_note_by_an_outsider_is_refused(match, olga):
    with refused_unchanged(NotAllowed, "seated in this match can note a revoke"):
        match.add_note(olga, side="a", text="I saw a revoke")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"text": "   "}, "the note can't be empty"),
        ({"text": "x" * 501}, "A note is too long: 500 characters at most."),
        ({"side": "c"}, "The side must be a or b."),
        ({"deal": 2}, "The deal must be a whole number from 1 to 1."),
        ({"deal": 0}, "The deal must be a whole number from 1 to 1."),
        ({"deal": "last"}, "The deal must be a whole number."),
    ],
)
def test_add_note_refuses_bad_input(match, rui, kwargs, message):
    kwargs = {"side": "b", "text": "revoke in deal 1", **kwargs}
    with refused_unchanged(values.InvalidInput, message):
        match.add_note(rui, **kwargs)


def test_author_withdraws_a_note_and_it_stays_in_the_history(match, rui):
    note = match.add_note(rui, side="b", text="Eles revoked")
    version = match.version
    match.withdraw_note(rui, note.pk)
    note.refresh_from_db()
    assert note.withdrawn
    assert note.withdrawn_at is not None
    assert match.version == version + 1
    event = last_event(match)
    assert (event.action, event.by, event.deal) == (Event.NOTE_WITHDRAWN, rui, 1)
    assert event.before == {"note": note.pk, "side": "b", "text": "Eles revoked"}
    assert match.events.filter(action=Event.NOTE).count() == 1


def test_host_withdraws_anybodys_note(match, ana, ze):
    note = match.add_note(ze, side="a", text="Nós revoked")
    match.withdraw_note(ana, note.pk)
    note.refresh_from_db()
    assert note.withdrawn


def test_withdraw_by_neither_author_nor_host_is_refused(match, rui, ze):
    note = match.add_note(rui, side="b", text="Eles revoked")
    with refused_unchanged(NotAllowed, "Only the note's author or the host can withdraw it."):
        match.withdraw_note(ze, note.pk)


def test_withdraw_an_unknown_or_withdrawn_note_is_refused(match, ana, rui, olga):
    note = match.add_note(rui, side="b", text="Eles revoked")
    elsewhere = Match.objects.start(olga, SEAT_NAMES)
    foreign = elsewhere.add_note(olga, side="a", text="not this match")
    for note_id in (foreign.pk, note.pk + 1000, "x"):
        with refused_unchanged(NotFound, "There is no such note in this match."):
            match.withdraw_note(ana, note_id)
    match.withdraw_note(rui, note.pk)
    with refused_unchanged(NotFound, "There is no such note in this match."):
        match.withdraw_note(rui, note.pk)


# Links and rematch ------------------------------------------------------------


def test_renew_links_replaces_both_tokens(match, ana):
    old = (match.join_token, match.watch_token)
    version = match.version
    match.renew_links(ana)
    assert match.join_token not in old
    assert match.watch_token not in old
    assert match.join_token != match.watch_token
    assert match.version == version + 1
    event = last_event(match)
    assert (event.action, event.by) == (Event.RENEW, ana)


def test_renew_links_by_a_member_is_refused(match, rui):
    with refused_unchanged(NotAllowed, "Only the host can renew the links."):
        match.renew_links(rui)


def test_rematch_starts_the_next_rubber_of_the_night_with_the_same_pairs(won_match, ana):
    version = won_match.version
    following = won_match.rematch(ana)
    assert following.night == won_match.night
    assert (following.host, following.status, following.version) == (ana, Match.IN_PLAY, 1)
    assert following.direction == won_match.direction
    # Two deals were played from a1, so the third dealer (a2) deals first.
    assert following.first_dealer == won_match.dealer(3) == "a2"
    assert [(s.position, s.name, s.user.username) for s in following.seat_list()] == [
        (s.position, s.name, s.user.username) for s in won_match.seat_list()
    ]
    assert won_match.version == version + 1
    event = last_event(won_match)
    assert (event.action, event.by) == (Event.REMATCH, ana)
    assert event.after["match"] == following.pk
    start = last_event(following)
    assert (start.action, start.after["rematch_of"]) == (Event.START, won_match.pk)


def test_rematch_with_partners_swapped(won_match, ana, rui, ze, maria):
    moves = {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"}
    following = won_match.rematch(ana, seats=moves)
    assert [seat.user for seat in following.seat_list()] == [ana, ze, rui, maria]
    assert following.seats.get(position="a2").name == "Zé"


def test_rematch_by_a_member_is_refused(won_match, ze):
    with refused_unchanged(NotAllowed, "Only the host can start a rematch."):
        won_match.rematch(ze)


def test_rematch_while_in_play_is_refused(match, ana):
    with refused_unchanged(values.Conflict, "This rubber is still in play"):
        match.rematch(ana)


@pytest.mark.parametrize(
    "seats",
    [
        {"a1": "a1", "a2": "a1", "b1": "b1", "b2": "b2"},
        {"a1": "a1", "a2": "a2", "b1": "b1"},
        {"a1": "a1", "a2": "a2", "b1": "b1", "b3": "b2"},
    ],
)
def test_rematch_with_bad_seats_is_refused(won_match, ana, seats):
    with refused_unchanged(values.InvalidInput, "Give each of the four seats exactly one"):
        won_match.rematch(ana, seats=seats)


# The database guards the sheet too --------------------------------------------


@pytest.mark.parametrize(
    "cells",
    [{"a": 1, "b": 2}, {"a": 4, "b": 4}, {"a": -1, "b": None}, {"a": 0, "b": -3}],
)
def test_database_refuses_both_cells_positive_or_a_negative_cell(match, cells):
    with pytest.raises(IntegrityError), transaction.atomic():
        Deal.objects.create(match=match, number=1, **cells)
    assert not match.deals.exists()


def test_database_refuses_two_rows_for_one_deal(match, rui):
    match.record(rui, deal=1, side="a", games=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        Deal.objects.create(match=match, number=1, a=0, b=2)
    assert match.sheet() == [rules.Deal(1, 0)]


def test_database_refuses_one_user_in_two_seats(open_match, rui):
    open_match.join(rui, token=open_match.join_token, position="a2")
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.filter(match=open_match, position="b1").update(user=rui)
    assert open_match.seats.filter(user=rui).count() == 1


def test_events_refuse_to_be_changed(match, rui):
    match.record(rui, deal=1, side="a", games=2)
    event = last_event(match)
    event.after = {"a": 4, "b": 0, "sweep": True, "side": "a"}
    with pytest.raises(RuntimeError, match="append-only"):
        event.save()
    event.refresh_from_db()
    assert event.after == {"a": 2, "b": 0, "sweep": False, "side": "a"}
