"""A season's table read from the club's tournaments (``clubs.board.season_table``):
which tournaments count, and the points, places and rubbers won they give."""

import datetime

import pytest
from django.utils import timezone

from clubs import board
from tests.clubs import club_of
from tests.tournaments import play_round
from tournaments.models import Tournament

PAIRS = [["Ana", "Rui"], ["Zé", "Maria"], ["Olga", "Tó"], ["Inês", "Nuno"]]


@pytest.fixture
def club(ana):
    return club_of(ana)[0]


def season_of(club, ana, start=None, end=None):
    today = timezone.localdate()
    return club.add_season(
        ana,
        name="Época",
        start=start or today - datetime.timedelta(days=30),
        end=end or today + datetime.timedelta(days=30),
    )


def knockout(club, ana, *, finish=True, **options):
    """A knockout of PAIRS, pair a winning every series: Ana & Rui are champions."""
    tournament = Tournament.objects.open(
        ana, name="Taça", pairs=PAIRS, format="knockout", mocas_to_win=1, tables=2,
        club=club.pk, **options,
    )  # fmt: skip
    tournament.start_round(ana)
    play_round(tournament, winners=lambda series: min(series.a, series.b))
    if finish:
        tournament.start_round(ana)
        play_round(tournament, winners=lambda series: min(series.a, series.b))
    return tournament


def points(table):
    return {
        line.name: (line.rank, line.points, line.won, line.best, line.rubbers_won)
        for line in table.lines
    }


def test_a_finished_knockout_gives_its_places_points(club, ana):
    season = season_of(club, ana)
    cup = knockout(club, ana)
    assert cup.progress().finished
    table = board.season_table(club, season)
    assert table.tournament_ids == [cup.pk]
    scored = points(table)
    # Champions 10 + 1; the final's losers 8 + 1; the semi-finals' losers share 3rd: 6 + 1.
    assert scored["Ana"] == (1, 11, 1, 1, 2)
    assert scored["Rui"] == (1, 11, 1, 1, 2)
    assert scored["Olga"][1:4] == (9, 0, 2) or scored["Zé"][1:4] == (9, 0, 2)
    assert sorted(value[1] for value in scored.values()) == [7, 7, 7, 7, 9, 9, 11, 11]


def test_a_knockout_ended_without_its_champion_does_not_count(club, ana):
    season = season_of(club, ana)
    cup = knockout(club, ana, finish=False)
    cup.end(ana)
    assert board.season_table(club, season).lines == []


def test_a_tournament_finished_outside_the_season_does_not_count(club, ana):
    long_ago = season_of(
        club, ana, start=datetime.date(2020, 1, 1), end=datetime.date(2020, 12, 31)
    )
    knockout(club, ana)
    assert board.season_table(club, long_ago).lines == []


def test_an_ordinary_tournament_is_no_clubs(club, ana):
    season = season_of(club, ana)
    Tournament.objects.open(ana, name="Outra", pairs=PAIRS, mocas_to_win=1)
    assert list(board.club_tournaments(club)) == []
    assert board.season_table(club, season).lines == []


def test_a_season_and_a_record_read_in_the_same_queries_however_many_tournaments(
    club, ana, django_assert_max_num_queries
):
    season = season_of(club, ana)
    ana_ = club.players.get(name="Ana")
    counts = []
    for _ in range(3):
        knockout(club, ana)
        with django_assert_max_num_queries(100) as season_queries:
            board.season_table(club, season)
        with django_assert_max_num_queries(100) as record_queries:
            board.record(club, ana_)
        counts.append((len(season_queries), len(record_queries)))
    assert counts[0] == counts[1] == counts[2]
    assert len(board.season_table(club, season).lines) == 8
