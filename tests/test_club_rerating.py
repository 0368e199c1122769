"""The stored ratings after a changed old result (clubs/rating.py): a correction of the
club's oldest rubber, or of one in the middle, leaves every player's rating, their points
rubber by rubber and the club's forecasts and calibration exactly as rating every
rubber again from the first gives them."""

import gc
import itertools
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from clubs import rating, ratings
from clubs.models import Club, ClubRubber, Player
from tests.clubs import club_of, club_rubber


def bandeira(match, by, side):
    """``side`` wins the rubber at once, every trick in its first deal."""
    match.record(by, deal=1, side=side, games=4, sweep=True)
    match.refresh_from_db()
    return match


def flip(match, by):
    """A real correction of its one deal: the other side took every trick."""
    won = match.winner
    match.correct(by, number=1, a=0 if won == "a" else 4, b=4 if won == "a" else 0, sweep=True)
    match.refresh_from_db()
    assert match.winner != won


def stored(club):
    club.refresh_from_db()
    players = {
        player.pk: (player.mu, player.sigma, player.rubbers, player.won, player.points)
        for player in Player.objects.filter(club=club)
    }
    return players, club.forecasts, club.calibration


@pytest.fixture
def played(ana):
    """A club of eight and twelve rubbers between changing fours, won by either side."""
    club, players = club_of(ana)
    roster = list(players.values())
    fours = itertools.islice(itertools.cycle(itertools.combinations(roster, 4)), 0, 60, 5)
    matches = [
        bandeira(club_rubber(ana, club, *four), ana, "ab"[number % 3 == 0])
        for number, four in enumerate(fours)
    ]
    assert ClubRubber.objects.filter(club=club, won_at__isnull=False).count() == 12
    return club, matches


@pytest.mark.parametrize("which", [0, 5], ids=["the oldest", "one in the middle"])
def test_a_corrected_old_rubber_rates_as_from_the_first(played, ana, which):
    club, matches = played
    before = stored(club)
    flip(matches[which], ana)
    after = stored(club)
    assert after != before
    # What the correction left is what rating everything again from the first gives.
    rating.rerate(club.pk)
    assert stored(club) == after
    # And flipped back, the ratings are the ones before, to the last digit.
    flip(matches[which], ana)
    assert stored(club) == before


def test_rating_from_the_first_forgets_points_of_rubbers_no_longer_there(played):
    club, _matches = played
    player = Player.objects.filter(club=club).order_by("-rubbers").first()
    # A point of a rubber no longer rated (a stale one) is not kept from the start.
    Player.objects.filter(pk=player.pk).update(points=[[0, 1.0, 1.0, 1], *player.points])
    rating.rerate(club.pk)
    player.refresh_from_db()
    assert player.points[0][0] != 0
    assert len(player.points) == player.rubbers


def test_reading_a_club_or_starting_its_rubber_leaves_its_forecasts_aside(played, ana):
    club, _matches = played
    assert "forecasts" in Club.objects.readable_by(ana).get(pk=club.pk).get_deferred_fields()
    four = list(Player.objects.filter(club=club))[:4]
    with CaptureQueriesContext(connection) as captured:
        club_rubber(ana, club, *four)
    read = [query["sql"] for query in captured.captured_queries if "clubs_club" in query["sql"]]
    assert read and not any("forecasts" in sql for sql in read if sql.startswith("SELECT"))
    # The re-rating reads them, as it must.
    assert len(stored(club)[1]) == 12


def test_a_pass_runs_with_the_collector_paused_and_leaves_it_running(played, monkeypatch):
    club, _matches = played
    seen = []
    rate = ratings.rate

    def watched(*args, **kwargs):
        seen.append(gc.isenabled())
        return rate(*args, **kwargs)

    monkeypatch.setattr(ratings, "rate", watched)
    rating.rerate(club.pk)
    assert seen == [False] and gc.isenabled()

    def failing(*args, **kwargs):
        raise RuntimeError("the pass fails")

    monkeypatch.setattr(ratings, "rate", failing)
    with pytest.raises(RuntimeError):
        rating.rerate(club.pk)
    assert gc.isenabled()


def test_a_rubber_won_last_reads_the_points_of_its_own_players_only(played, ana):
    club, _matches = played
    four = list(Player.objects.filter(club=club).order_by("pk"))[2:6]
    match = club_rubber(ana, club, *four)
    others = Player.objects.filter(club=club).exclude(pk__in=[player.pk for player in four])
    before = {player.pk: player.points for player in others}
    with CaptureQueriesContext(connection) as captured:
        bandeira(match, ana, "a")
    reads = [
        query["sql"]
        for query in captured.captured_queries
        if query["sql"].startswith("SELECT") and '"clubs_player"."points"' in query["sql"]
    ]
    assert len(reads) == 1
    ids = {player.pk for player in four}
    [listed] = re.findall(r'"clubs_player"\."id" IN \(([\d, ]+)\)', reads[0])
    assert {int(pk) for pk in listed.split(", ")} == ids  # in whatever order a set lists them
    assert {player.pk: player.points for player in others} == before
    assert all(player.points[-1][0] == match.pk for player in Player.objects.filter(pk__in=ids))
