"""A sheet read outside a change sees the database at one moment (``sheet.one_moment``):
a change another phone commits while the sheet is being read, between its queries, is
either wholly in it or wholly out, never its deal beside the score before it."""

import json
import threading

import pytest
from django.db import connection, connections

from matches.models import Match

from .pages import HTMX, browser, text

pytestmark = pytest.mark.django_db(transaction=True)  # the change commits meanwhile


def entered_meanwhile(match, who, **entry):
    """A wrapper of this connection's queries: just before the sheet's deals are read,
    ``who``'s entry is made and committed from another connection."""
    made = []

    def wrapper(execute, sql, params, many, context):
        if not made and 'FROM "matches_deal"' in sql:
            made.append(True)
            thread = threading.Thread(target=enter, daemon=True)
            thread.start()
            thread.join(10)
        return execute(sql, params, many, context)

    def enter():
        try:
            Match.objects.get(pk=match.pk).record(who, **entry)
        finally:
            connections.close_all()

    return wrapper, made


def test_the_page_shows_the_sheet_of_one_moment(match, ana, rui):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite's reads stay as they come")
    client = browser(ana)
    wrapper, made = entered_meanwhile(match, rui, deal=1, side="a", games=1)
    with connection.execute_wrapper(wrapper):
        page = text(client.get(f"/matches/{match.pk}/sheet/", HTTP_IF_NONE_MATCH='"0-x"', **HTMX))
    assert made
    # The sheet as it was: deal 1 to play, nothing entered; not deal 2 beside 0 games.
    assert 'data-version="4"' in page
    assert "Deal 1" in page and "Deal 2" not in page
    assert Match.objects.get(pk=match.pk).version == 5  # and the entry is in


def test_the_api_answers_the_sheet_of_one_moment(match, ana, rui):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite's reads stay as they come")
    client = browser(ana)
    wrapper, made = entered_meanwhile(match, rui, deal=1, side="a", games=1)
    with connection.execute_wrapper(wrapper):
        sheet = json.loads(client.get(f"/api/matches/{match.pk}/").content)
    assert made
    assert sheet["version"] == 4
    assert sheet["deals"] == []
