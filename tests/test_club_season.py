"""A season's table (SPEC, Clubs, "Season") as ``clubs.season`` ranks it: pure values."""

from datetime import date
from types import SimpleNamespace

from clubs.season import Finished, shown, table

POINTS = [10, 8, 6, 5, 4, 3, 2, 1]


def line(lines, player):
    return next(line for line in lines if line.player == player)


def test_both_players_of_a_pair_get_its_place_and_the_point_for_taking_part():
    cup = Finished(
        places=[(1, ["p1"]), (2, ["p2"]), (3, ["p3", "p4"])],
        players={
            "p1": ("Ana", "Rui"),
            "p2": ("Zé", "Maria"),
            "p3": ("Olga", "Tó"),
            "p4": ("Inês", "Nuno"),
        },
    )
    lines = table([cup], POINTS, 1)
    assert [(entry.player, entry.points, entry.rank) for entry in lines[:2]] == [
        ("Ana", 11, 1),
        ("Rui", 11, 1),
    ]
    assert line(lines, "Zé").points == 9
    # Pairs sharing 3rd each get 3rd's points.
    assert {line(lines, name).points for name in ("Olga", "Tó", "Inês", "Nuno")} == {7}
    assert line(lines, "Olga").rank == 5


def test_past_the_table_a_place_earns_only_the_point_for_taking_part():
    cup = Finished(places=[(1, ["p1"]), (9, ["p2"])], players={"p1": ("A", "B"), "p2": ("C", "D")})
    lines = table([cup], [10, 8], 2)
    assert line(lines, "C").points == 2


def test_level_on_points_then_tournaments_won_then_best_place_then_rubbers_won():
    one = Finished(places=[(1, ["x"]), (2, ["y"])], players={"x": ("A", "B"), "y": ("C", "D")})
    two = Finished(places=[(1, ["y"]), (2, ["x"])], players={"x": ("A", "E"), "y": ("C", "F")})
    lines = table([one, two], [10, 8], 0, rubbers_won={"A": 5, "C": 4})
    # A and C: 18 points, one tournament won each, best place 1: rubbers won decide.
    assert [entry.player for entry in lines[:2]] == ["A", "C"]
    assert (line(lines, "A").rank, line(lines, "C").rank) == (1, 2)
    # B (won one: 10) is ahead of D (lost one: 8).
    assert line(lines, "B").rank < line(lines, "D").rank
    # E and F played one each: F won it.
    assert line(lines, "F").rank < line(lines, "E").rank


def test_still_level_they_share_the_rank():
    cup = Finished(places=[(1, ["x"]), (2, ["y"])], players={"x": ("A", "B"), "y": ("C", "D")})
    lines = table([cup], POINTS, 1)
    assert [entry.rank for entry in lines] == [1, 1, 3, 3]


def test_no_tournament_no_table():
    assert table([], POINTS, 1) == []


# The season shown ----------------------------------------------------------------------------

LAST = SimpleNamespace(start=date(2025, 9, 1), end=date(2026, 6, 30))
NEXT = SimpleNamespace(start=date(2026, 9, 1), end=date(2027, 6, 30))
FIRST = SimpleNamespace(start=date(2024, 9, 1), end=date(2025, 6, 30))


def test_the_season_shown_is_the_one_today_falls_in():
    assert shown([NEXT, LAST, FIRST], date(2026, 1, 15)) is LAST
    assert shown([NEXT, LAST, FIRST], LAST.start) is LAST
    assert shown([NEXT, LAST, FIRST], LAST.end) is LAST


def test_between_seasons_the_last_one_stays_with_its_final_table():
    assert shown([NEXT, LAST, FIRST], date(2026, 7, 20)) is LAST
    assert shown([FIRST, LAST], date(2030, 1, 1)) is LAST  # in whatever order they come


def test_before_the_first_season_the_first_to_begin():
    assert shown([NEXT, LAST], date(2025, 1, 1)) is LAST


def test_of_two_seasons_overlapping_the_one_begun_last():
    summer = SimpleNamespace(start=date(2026, 6, 1), end=date(2026, 8, 31))
    assert shown([LAST, summer], date(2026, 6, 15)) is summer


def test_no_season_none_shown():
    assert shown([], date(2026, 1, 1)) is None
