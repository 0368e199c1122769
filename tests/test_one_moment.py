"""A sheet read outside a change is the sheet of one moment (``Match.objects.one_sheet``):
a change another phone commits while the sheet is being read, between its queries, is
either wholly in it or wholly out, never its deal beside the score and version before it.
"""

import json
import threading

import pytest
from django.db import connection, connections

from matches.models import Match

from .pages import HTMX, browser, text

pytestmark = pytest.mark.django_db(transaction=True)  # the change commits meanwhile


def entered_meanwhile(match, who, *entries, before='FROM "matches_deal"'):
    """A wrapper of this connection's queries: just before each of the first readings
    of the sheet's deals (or what ``before`` names), the next of ``entries`` (``who``'s)
    is made and committed from another connection. Says how many times it was read."""
    waiting = list(entries)
    reads = []

    def wrapper(execute, sql, params, many, context):
        if before in sql:
            reads.append(sql)
            if waiting:
                thread = threading.Thread(target=enter, args=(waiting.pop(0),))
                thread.start()
                thread.join(10)
        return execute(sql, params, many, context)

    def enter(entry):
        try:
            Match.objects.get(pk=match.pk).record(who, **entry)
        finally:
            connections.close_all()

    return wrapper, reads


def test_a_change_committed_while_the_sheet_is_read_is_wholly_in_it(match, rui):
    assert match.version == 4
    wrapper, reads = entered_meanwhile(match, rui, {"deal": 1, "side": "a", "games": 1})
    with connection.execute_wrapper(wrapper):
        read = Match.objects.one_sheet(pk=match.pk)
    # Read once, overtaken by deal 1 after its row; read again, with the deal.
    assert len(reads) == 2
    assert read.version == 5
    assert [(deal.number, deal.a, deal.b) for deal in read.deal_list()] == [(1, 1, 0)]


def test_what_undo_would_take_back_is_read_in_the_same_moment(match, rui):
    # The entry comes in after the deals were read, before the changes undo looks back
    # on: the sheet read again, deal and undo both of version 5.
    wrapper, reads = entered_meanwhile(
        match, rui, {"deal": 1, "side": "a", "games": 1}, before='FROM "matches_event"'
    )
    with connection.execute_wrapper(wrapper):
        page = text(browser(rui).get(f"/matches/{match.pk}/sheet/", **HTMX))
    assert len(reads) == 2
    assert 'data-version="5"' in page
    assert "Deal 2" in page
    assert "Undo Rui's 1 for Nós in deal 1" in page


def test_a_sheet_overtaken_at_every_reading_is_read_three_times_at_most(match, rui):
    entries = [{"deal": number, "side": "a", "games": 1} for number in (1, 2, 3, 4)]
    wrapper, reads = entered_meanwhile(match, rui, *entries)
    with connection.execute_wrapper(wrapper):
        Match.objects.one_sheet(pk=match.pk)
    assert len(reads) == 3
    assert Match.objects.get(pk=match.pk).version == 7  # nothing waited for the reading


def test_no_sheet_for_a_lookup_that_names_none(match):
    assert Match.objects.one_sheet(pk=match.pk + 1000) is None


def test_the_poll_shows_and_keeps_the_sheet_of_one_moment(match, ana, rui, maria):
    wrapper, reads = entered_meanwhile(match, rui, {"deal": 1, "side": "a", "games": 1})
    with connection.execute_wrapper(wrapper):
        page = text(browser(ana).get(f"/matches/{match.pk}/sheet/", **HTMX))
    assert reads
    # The sheet after deal 1, under its version: not deal 2 to play under version 4.
    assert 'data-version="5"' in page
    assert "Deal 2" in page
    # Ana's partner is shown what she was: the sheet of version 5, deal 1 in it.
    partner = text(browser(rui).get(f"/matches/{match.pk}/sheet/", **HTMX))
    assert 'data-version="5"' in partner and "Deal 2" in partner
    before = text(browser(maria).get(f"/matches/{match.pk}/", **HTMX))
    assert 'data-version="5"' in before


def test_the_api_answers_the_sheet_of_one_moment(match, ana, rui):
    wrapper, reads = entered_meanwhile(match, rui, {"deal": 1, "side": "a", "games": 1})
    with connection.execute_wrapper(wrapper):
        sheet = json.loads(browser(ana).get(f"/api/matches/{match.pk}/").content)
    assert reads
    assert sheet["version"] == 5
    assert [deal["number"] for deal in sheet["deals"]] == [1]
