"""A club's rubbers and its ratings: which rubbers rate, in what order, and how a change
to an old result re-rates every later one as if it had been so from the start."""

import pytest

from clubs import rating, ratings
from clubs.models import ClubRubber, Player
from matches.models import Match
from tests.clubs import club_of, club_rubber, win
from tests.tournaments import play_round, win_rubber
from tournaments.models import Tournament


@pytest.fixture
def club(ana):
    return club_of(ana)


def rubber(ana, club, players, a1, a2, b1, b2):
    return club_rubber(ana, club, *(players[name] for name in (a1, a2, b1, b2)))


def standing(club):
    """Every player's rating as stored: (mu, sigma, rubbers, won, points)."""
    return {
        player.name: (player.mu, player.sigma, player.rubbers, player.won, player.points)
        for player in Player.objects.filter(club=club)
    }


def from_scratch(club):
    """The ratings rated again from the club's first rubber, by ``rating.rerate``."""
    rating.rerate(club.pk)
    return standing(club)


def test_a_won_rubber_rates_its_four_players(club, ana):
    club, players = club
    match = win(rubber(ana, club, players, "Ana", "Rui", "Zé", "Maria"), ana)
    ana_, ze = Player.objects.get(name="Ana"), Player.objects.get(name="Zé")
    assert (ana_.rubbers, ana_.won, ze.rubbers, ze.won) == (1, 1, 1, 0)
    assert ana_.mu > ratings.new_skill().mu > ze.mu
    assert ana_.points == [[match.pk, ana_.mu, ana_.sigma, 1]]
    assert Player.objects.get(name="Olga").rubbers == 0
    assert ClubRubber.objects.get(match=match).won_at is not None


def test_rubbers_in_play_ended_early_or_of_nobody_rate_nobody(club, ana):
    club, players = club
    in_play = rubber(ana, club, players, "Ana", "Rui", "Zé", "Maria")
    in_play.record(ana, deal=1, side="a", games=2)
    ended = rubber(ana, club, players, "Ana", "Rui", "Zé", "Maria")
    ended.record(ana, deal=1, side="a", games=2)
    ended.end(ana)
    plain = Match.objects.start(ana, {"a1": "Ana", "a2": "Rui", "b1": "Zé", "b2": "Maria"})
    win(plain, ana)
    assert all(player.rubbers == 0 for player in Player.objects.all())
    assert not ClubRubber.objects.filter(match=plain).exists()


def test_an_undo_of_the_winning_entry_takes_the_rating_back(club, ana):
    club, players = club
    before = standing(club)
    match = win(rubber(ana, club, players, "Ana", "Rui", "Zé", "Maria"), ana)
    assert standing(club) != before
    match.undo(ana)
    assert standing(club) == before
    match.refresh_from_db()
    assert match.status == Match.IN_PLAY


def test_a_correction_of_an_old_rubber_rates_every_later_one_again(club, ana):
    club, players = club
    first = rubber(ana, club, players, "Ana", "Rui", "Zé", "Maria")
    first.record(ana, deal=1, side="a", games=4, sweep=True)
    win(rubber(ana, club, players, "Ana", "Zé", "Rui", "Maria"), ana, side="b")
    win(rubber(ana, club, players, "Ana", "Maria", "Zé", "Olga"), ana)
    win(rubber(ana, club, players, "Rui", "Zé", "Maria", "Tó"), ana)
    # The first rubber's only deal was Eles' bandeira, not Nós': the winner changes.
    first.correct(ana, number=1, a=0, b=4, sweep=True)
    first.refresh_from_db()
    assert first.winner == "b"
    corrected = standing(club)
    assert Player.objects.get(name="Zé").won == 2
    # Exactly what rating every rubber again from the start gives.
    assert from_scratch(club) == corrected


def test_the_order_is_when_rubbers_were_first_won_kept_through_an_undo(club, ana):
    club, players = club
    first = win(rubber(ana, club, players, "Ana", "Rui", "Zé", "Maria"), ana)
    win(rubber(ana, club, players, "Ana", "Zé", "Rui", "Maria"), ana)
    place = ClubRubber.objects.get(match=first).won_at
    first.undo(ana)
    first.record(ana, deal=2, side="b", games=2)
    first.record(ana, deal=3, side="b", games=2)
    first.refresh_from_db()
    assert first.winner == "b"
    assert ClubRubber.objects.get(match=first).won_at == place
    keys = [point[0] for point in Player.objects.get(name="Ana").points]
    assert keys == [first.pk, first.pk + 1]
    assert from_scratch(club) == standing(club)


def test_a_merge_that_seats_one_person_twice_unrates_that_rubber(club, ana):
    club, players = club
    twin = club.add_player(ana, "Aninhas")
    win(club_rubber(ana, club, players["Ana"], twin, players["Zé"], players["Maria"]), ana)
    assert Player.objects.get(name="Zé").rubbers == 1
    club.merge_players(ana, twin.pk, players["Ana"].pk)
    # Ana sat twice at that table: it rates nobody now.
    assert Player.objects.get(name="Zé").rubbers == 0
    assert Player.objects.get(name="Ana").rubbers == 0


def test_a_club_tournament_seats_its_roster_and_its_rubbers_rate(club, ana, api_as):
    club, players = club
    tournament = Tournament.objects.open(
        ana,
        name="Torneio",
        pairs=[["ana", "Rui"], ["Zé", "Maria"], ["Olga", "Beto"], ["Tó", "Inês"]],
        mocas_to_win=1,
        tables=2,
        club=club.pk,
    )
    # Names match the roster whatever their case; a new one joins it.
    beto = Player.objects.get(club=club, name="Beto")
    pairs = list(tournament.pairs.all())
    assert [pair.first for pair in pairs] == ["Ana", "Zé", "Olga", "Tó"]
    assert pairs[0].roster == [players["Ana"].pk, players["Rui"].pk]
    assert pairs[2].roster == [players["Olga"].pk, beto.pk]
    body = api_as(ana).get(f"/api/tournaments/{tournament.pk}/").json()
    assert body["pairs"][0]["players"] == [players["Ana"].pk, players["Rui"].pk]
    tournament.start_round(ana)
    play_round(tournament)
    rated = sum(player.rubbers for player in Player.objects.filter(club=club))
    assert rated == 2 * 4  # two rubbers, four players each
    match = Match.objects.filter(night__club_table__tournament=tournament).first()
    assert {seat.player_id for seat in match.seats.all()} <= set(
        Player.objects.filter(club=club).values_list("pk", flat=True)
    )
    assert ClubRubber.objects.filter(match__night__club_table__tournament=tournament).count() == 2


def test_an_ordinary_tournament_shows_its_players_names(ana, api_as):
    tournament = Tournament.objects.open(
        ana, name="T", pairs=[["Ana", "Rui"], ["Zé", "Maria"]], mocas_to_win=1
    )
    body = api_as(ana).get(f"/api/tournaments/{tournament.pk}/").json()
    assert body["pairs"][0]["players"] == ["Ana", "Rui"]
    tournament.start_round(ana)
    win_rubber(tournament.progress().rounds[0].series[0].current_match, "a")
    assert not ClubRubber.objects.exists()


def test_a_club_tournament_of_a_club_one_does_not_organise_is_refused(club, ana, rui, api_as):
    club, players = club
    players["Rui"].user = rui
    players["Rui"].save()
    body = {"name": "T", "pairs": [["Ana", "Rui"], ["Zé", "Maria"]], "club": club.pk}
    response = api_as(rui).post("/api/tournaments/", body, format="json")
    assert response.status_code == 403
    assert response.json()["detail"] == "Only the club's organisers can open its tournaments."
    response = api_as(ana).post("/api/tournaments/", {**body, "club": 999999}, format="json")
    assert response.status_code == 400
    assert not Tournament.objects.exists()
    assert club.players.count() == 8
