"""Two tables finishing at once, and a round drawn while a table corrects its last rubber:
real threads, each with its own PostgreSQL connection."""

import pytest

from matches.models import Match
from tests.test_concurrency import at_once
from tests.tournaments import tournament_of, win_rubber

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("races")]


def test_two_tables_finishing_at_once_never_take_the_same_waiting_series(ana):
    for _ in range(5):
        # 8 pairs on 2 tables: two series playing, two waiting.
        tournament = tournament_of(ana, pairs=8, tables=2, mocas_to_win=1)
        tournament.start_round(ana)
        playing = [s for s in tournament.progress().rounds[0].series if s.current_match]
        outcomes = at_once(*(lambda s=s: win_rubber(s.current_match, "a") for s in playing))
        assert outcomes == [None, None]
        series = tournament.progress().rounds[0].series
        assert sorted(s.table for s in series if not s.decided) == [1, 2]
        assert all(s.current_match for s in series if not s.decided)
        matches = Match.objects.filter(night__in=tournament.tables.values("night"))
        assert matches.filter(status=Match.IN_PLAY).count() == 2


def test_a_round_drawn_while_a_table_corrects_its_last_rubber_waits_its_turn(ana):
    for _ in range(5):
        tournament = tournament_of(ana, pairs=4, tables=2, mocas_to_win=1)
        tournament.start_round(ana)
        last = [s.current_match for s in tournament.progress().rounds[0].series]
        for match_id in last:
            win_rubber(match_id, "a")
        match = Match.objects.get(pk=last[0])
        # The correction keeps the winner (the rubber may be closed by the new round).
        correction, drawn = at_once(
            lambda match=match: match.correct(ana, number=1, a=4, b=0, sweep=True),
            lambda tournament=tournament: tournament.start_round(ana),
        )
        assert not isinstance(drawn, Exception), drawn
        assert not isinstance(correction, Exception) or "closed" in str(correction), correction
        assert tournament.rounds.count() == 2
        assert Match.objects.filter(previous=match).count() == 1
