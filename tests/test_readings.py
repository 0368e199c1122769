"""The API answers a sheet from a serializer built once a thread (``readings.represent``),
which says what a serializer made for that one answer would say, whoever asked before."""

import threading

import pytest

from matches.api.readings import MatchSerializer, represent
from matches.models import Match
from matches.sheet import read

from .conftest import make_user

EVENTS = {"events": "http://testserver/api/matches/1/events/"}


@pytest.fixture
def sheets(match, ana, ze):
    """``sheets(viewer, **how)``: the sheet of a rubber with deals, a tie pending, a note
    and a request for a seat, as ``viewer`` sees it (``watching=True``: a watch screen)."""
    match.record(ana, deal=1, side="a", games=1)
    match.record(ana, deal=2, side="a", games=0)
    match.record(ana, deal=2, side="b", games=0)
    match.add_note(ze, side="a", text="Rui revoked in deal 2")
    match.ask_for_seat(make_user("olga", "Olga"), token=match.join_token, position="b2")

    def now(viewer, **how):
        return read(Match.objects.one_sheet(pk=match.pk, acting=True), viewer, **how)

    return now


def test_each_answer_is_what_a_serializer_of_its_own_says(sheets, match, ana, ze):
    readings = [sheets(ana), sheets(ze), sheets(ana, watching=True), sheets(ze), sheets(ana)]
    for sheet in readings:
        assert (
            represent(MatchSerializer, sheet, EVENTS) == MatchSerializer(sheet, context=EVENTS).data
        )
    host, member = (
        represent(MatchSerializer, readings[0], EVENTS),
        represent(MatchSerializer, readings[1], EVENTS),
    )
    assert host["join_token"] == match.join_token and "join_token" not in member
    assert host["events"] == member["events"] == EVENTS["events"]


@pytest.fixture
def built(monkeypatch):
    """Each time a MatchSerializer builds its fields."""
    built, build = [], MatchSerializer.get_fields
    monkeypatch.setattr(MatchSerializer, "get_fields", lambda self: built.append(1) or build(self))
    return built


def test_answering_sheets_again_builds_no_fields(api_as, match, ana, ze, built):
    for who in (ana, ze, ana, ze):
        assert api_as(who).get(f"/api/matches/{match.pk}/").status_code == 200
    assert len(built) <= 1  # this thread's first answer, unless it gave one before


def test_each_thread_has_its_own(sheets, ze, built):
    represent(MatchSerializer, sheets(ze), EVENTS)
    before = len(built)
    answered, sheet, elsewhere = [], sheets(ze), {"events": "http://testserver/elsewhere/"}
    other = threading.Thread(
        target=lambda: answered.append(represent(MatchSerializer, sheet, elsewhere))
    )
    other.start()
    other.join()
    assert len(built) == before + 1
    assert answered[0]["events"] == elsewhere["events"]  # its own context, no other's
