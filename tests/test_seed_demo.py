"""manage.py seed_demo: a demo night with every kind of rubber, replaced on a re-run."""

import re
from io import StringIO

from django.contrib.auth import authenticate
from django.core.management import call_command
from django.utils import timezone

from clubs import board
from clubs.management.commands import seed_demo
from clubs.models import Club, ClubRubber
from matches.models import Event, Match, Night, User
from tournaments.models import Tournament


def seed(*args):
    out = StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


def test_demo_night_holds_ties_a_bandeira_a_shutout_an_early_end_and_swapped_partners(db):
    seed("--password", "demo-pass-123")
    night = Night.objects.get(name="Demo night")
    assert (night.name, night.place) == ("Demo night", "Café Central")
    rubbers = night.rubbers()
    assert [(m.status, m.games_a, m.games_b, m.marks) for m in rubbers] == [
        ("won", 4, 0, ["shutout"]),
        ("won", 0, 4, ["bandeira"]),
        ("ended", 1, 2, []),
        ("won", 4, 1, ["chapeu"]),
        ("in_play", 1, 0, []),
    ]
    assert any(deal.tie for deal in rubbers[0].deal_list())
    assert rubbers[1].side_names() == {"a": "Ana & Zé", "b": "Rui & Maria"}
    assert rubbers[2].notes.count() == 1
    assert rubbers[0].events.filter(action=Event.CORRECTION).exists()
    assert authenticate(username="demo-rui", password="demo-pass-123") is not None


def test_running_it_again_replaces_its_own_night_only(db, ana):
    mine = Match.objects.start(ana, {"a1": "A", "a2": "B", "b1": "C", "b2": "D"})
    first_run = seed()
    assert "Made the demo night" in first_run
    assert "Replaced the demo night" in seed()
    assert Night.objects.filter(name="Demo night").count() == 1
    assert Match.objects.filter(night__name="Demo night").count() == 5
    assert Match.objects.filter(pk=mine.pk).exists()
    assert User.objects.filter(username__startswith="demo-").count() == 4


def test_the_password_is_printed_when_none_is_given(db):
    out = seed()
    password = re.search(r"with the password (\S+)", out)[1]
    assert authenticate(username="demo-ana", password=password) is not None


def test_demo_tournaments_one_finished_with_its_champion_one_in_play(db):
    out = seed()
    finished, in_play = (
        Tournament.objects.get(name=name)
        for name in ("Demo tournament (finished)", "Demo tournament (in play)")
    )
    done = finished.progress()
    assert done.finished and done.champion == finished.pairs.get(first="Beatriz").pk
    assert [standing.rank for standing in done.standings] == list(range(1, 9))
    assert len(done.rounds) == 9  # seven of the round robin, the semi-finals and the final
    playing = in_play.progress()
    assert playing.status == "in_play" and len(playing.rounds) == 2
    assert any(series.current_match for series in playing.rounds[-1].series)
    assert f"/tournaments/{in_play.pk}/" in out
    seed()  # again: replaced, with their tables' nights
    demo = Tournament.objects.filter(name__startswith="Demo tournament")
    assert demo.count() == 2
    assert Night.objects.filter(club_table__tournament__in=demo).count() == 6


def test_the_demo_club_has_a_roster_a_season_of_three_tournaments_and_club_nights(db):
    out = seed("--password", "demo-pass-123")
    club = Club.objects.get(name="Café Central")
    ana = User.objects.get(username="demo-ana")
    assert list(club.organisers.all()) == [ana]
    assert club.players.count() == 12
    linked = dict(club.players.filter(user__isnull=False).values_list("name", "user__username"))
    assert linked == {"Ana": "demo-ana", "Rui": "demo-rui", "Zé": "demo-ze", "Maria": "demo-maria"}
    assert f"/clubs/{club.pk}/" in out and "Made the club Café Central" in out

    season = club.seasons.get()
    assert season.covers(timezone.localdate())
    table = board.season_table(club, season)
    assert [done.tournament.name for done in table.tournaments] == [
        "Torneio de outono",
        "Torneio de Natal",
        "Torneio de Reis",
    ]
    assert all(done.finished and done.tournament.pairs.count() == 4 for done in table.tournaments)
    assert {done.tournament.mocas_to_win for done in table.tournaments} == {1}
    assert table.lines[0].rank == 1 and table.lines[0].points > table.lines[-1].points

    nights = board.recent_nights(club)
    assert len(nights) == 8
    for night in nights:
        rubbers = night.rubbers()
        assert [rubber.status for rubber in rubbers] == ["won"] * 6
        partners = {
            frozenset(rubber.side_names().values()) for rubber in rubbers
        }  # the same four, other partners
        assert len(partners) > 1
    # Every rubber, casual or a tournament's, is the club's and rated.
    assert ClubRubber.objects.filter(club=club, won_at__isnull=False).count() == 8 * 6 + 3 * 6
    lines = board.leaderboard(club)
    assert all(line.rubbers for line in lines)
    assert sum(line.rubbers for line in lines) == 4 * (8 * 6 + 3 * 6)
    rui = club.players.get(name="Rui")
    record = board.record(club, rui)
    assert len(record.ratings) == record.line.rubbers and record.partners
    assert {placing.finished for placing in record.tournaments} == {True}


def test_running_it_again_replaces_the_demo_club_only(db, olga):
    other = Club.objects.open(olga, "Café Central")  # somebody else's, of the same name
    seed()
    counts = (Night.objects.count(), Tournament.objects.count(), ClubRubber.objects.count())
    assert "Replaced the club Café Central" in seed()
    assert Club.objects.filter(organisers__username="demo-ana").count() == 1
    assert (Night.objects.count(), Tournament.objects.count(), ClubRubber.objects.count()) == counts
    assert Club.objects.filter(pk=other.pk).exists()
    club = Club.objects.get(organisers__username="demo-ana")
    assert club.players.count() == len(seed_demo.STRENGTH)


def test_the_demo_club_is_replaced_even_once_demo_ana_no_longer_organises_it(db):
    seed()
    club = Club.objects.get(name="Café Central")
    rui = User.objects.get(username="demo-rui")
    ana = User.objects.get(username="demo-ana")
    club.add_organiser(ana, club.players.get(name="Rui").pk)
    club.remove_organiser(rui, ana.pk)
    seed()
    assert not Club.objects.filter(pk=club.pk).exists()
    assert Club.objects.filter(name="Café Central").count() == 1
