"""Two phones writing at once: real threads, each with its own PostgreSQL connection."""

import re
import threading
from functools import partial

import pytest
from django.db import connection

from matches import rules, values
from matches.models import Event, Match

from .conftest import SEAT_NAMES

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("races")]

ROUNDS = 10


def at_once(*calls):
    """Run each call in its own thread, released together; its result or its exception."""
    barrier = threading.Barrier(len(calls))
    outcomes = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait(timeout=10)
            outcomes[index] = call()
        except Exception as error:
            outcomes[index] = error
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=run, args=item) for item in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)
    return outcomes


def fresh_match(ana, rui, ze, maria):
    match = Match.objects.start(ana, SEAT_NAMES, host_seat="a1")
    for user, position in ((rui, "a2"), (ze, "b1"), (maria, "b2")):
        match.join(user, token=match.join_token, position=position)
    return match


def copy(match):
    return Match.objects.get(pk=match.pk)


def entries_at_once(match, *entries):
    """Each (by, side, games) entered for deal 1 from its own thread, all released together.

    Each thread gets its own Match instance, since the methods refresh the one they run on.
    """
    return at_once(
        *(
            partial(copy(match).record, by, deal=1, side=side, games=games)
            for by, side, games in entries
        )
    )


def split(outcomes):
    refused = [outcome for outcome in outcomes if isinstance(outcome, values.Refusal)]
    done = [outcome for outcome in outcomes if not isinstance(outcome, Exception)]
    assert len(refused) + len(done) == len(outcomes), outcomes  # nothing else went wrong
    return done, refused


def test_two_phones_entering_the_same_cell_at_once(ana, rui, ze, maria):
    for _ in range(ROUNDS):
        match = fresh_match(ana, rui, ze, maria)
        version = copy(match).version
        outcomes = entries_at_once(match, (ana, "a", 2), (rui, "a", 2))
        done, refused = split(outcomes)
        assert len(done) == 1
        assert len(refused) == 1
        assert isinstance(refused[0], values.Conflict)
        assert "Deal 1 already has 2 for Ana & Rui" in str(refused[0])
        assert match.sheet() == [rules.Deal(2, 0)]
        assert match.events.filter(action=Event.ENTRY).count() == 1
        stored = copy(match)
        assert (stored.version, stored.games_a) == (version + 1, 2)


def test_two_phones_filling_the_last_cell_of_a_deal_at_once(ana, rui, ze, maria):
    for _ in range(ROUNDS):
        match = fresh_match(ana, rui, ze, maria)
        match.record(rui, deal=1, side="a", games=0)
        outcomes = entries_at_once(match, (ze, "b", 0), (maria, "b", 1))
        done, refused = split(outcomes)
        assert len(done) == 1
        assert len(refused) == 1
        assert isinstance(refused[0], values.Conflict)
        # Whichever came first, the other is told what the cell holds and that it stays.
        assert re.search(
            r"Deal 1 already has [01] for Zé & Maria, so [01] was not", str(refused[0])
        )
        # Read again: this match holds the sheet as its own entry left it.
        assert Match.objects.get(pk=match.pk).sheet() == [rules.Deal(0, done[0].b)]
        assert match.events.filter(action=Event.ENTRY).count() == 2


def test_two_sides_claiming_the_same_deal_at_once(ana, rui, ze, maria):
    for _ in range(ROUNDS):
        match = fresh_match(ana, rui, ze, maria)
        outcomes = entries_at_once(match, (rui, "a", 1), (ze, "b", 2))
        done, refused = split(outcomes)
        assert len(done) == 1
        assert len(refused) == 1
        assert isinstance(refused[0], values.Conflict)
        row = done[0]
        first = "Ana & Rui won 1" if row.a else "Zé & Maria won 2"
        assert f"Deal 1 is already claimed: {first} in it." in str(refused[0])
        assert match.sheet() == [rules.Deal(row.a, row.b)]
        assert match.events.filter(action=Event.ENTRY).count() == 1
