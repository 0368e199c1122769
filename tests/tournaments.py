"""Helpers for the tournament tests: a tournament of named pairs, and playing its
rubbers to their end as a table would."""

from matches.models import Match
from tournaments.models import Tournament

PAIRS = [
    ["Ana", "Rui"],
    ["Zé", "Maria"],
    ["Inês", "Tiago"],
    ["Beatriz", "Duarte"],
    ["Carla", "Nuno"],
    ["Sofia", "Hugo"],
    ["Marta", "Filipe"],
    ["Joana", "Pedro"],
]


def tournament_of(organiser, pairs=4, **options):
    options = {"tables": 2, "mocas_to_win": 2, **options}
    return Tournament.objects.open(
        organiser, name="Torneio de Natal", pairs=PAIRS[:pairs], **options
    )


def win_rubber(match_id, side, by=None):
    """The side wins the rubber in play with a bandeira (4 games, every trick)."""
    match = Match.objects.get(pk=match_id)
    match.record(by or match.host, deal=len(match.deal_list()) + 1, side=side, games=4, sweep=True)


def pair_id(tournament, first):
    return tournament.pairs.get(first=first).pk


def win_series(tournament, series_id, winner_first):
    """The pair whose first player is ``winner_first`` wins every rubber of the series."""
    while True:
        state = tournament.progress().series_by_id(series_id)
        if state.decided:
            return state
        winner = pair_id(tournament, winner_first)
        win_rubber(state.current_match, state.side_of(winner))


def play_round(tournament, winners=None):
    """Every series of the round in play, won by its pair a (or ``winners``' choice)."""
    while True:
        now = tournament.progress()
        open_series = [series for series in now.rounds[-1].series if not series.decided]
        playing = [series for series in open_series if series.current_match]
        if not open_series:
            return now
        series = playing[0]
        side = "a"
        if winners:
            side = series.side_of(winners(series))
        win_rubber(series.current_match, side)


def played_round_robin(organiser, pairs=64, tables=32, mocas_to_win=3):
    """A round robin of ``pairs`` pairs with every round played (each series won 3–1 by
    its pair a, in bandeiras), its rows made in bulk: what a whole club night leaves."""
    from matches.models import Seat
    from tournaments import draw
    from tournaments.models import Round, Rubber, Series

    names = [[f"Jogador {2 * n + 1}", f"Jogador {2 * n + 2}"] for n in range(pairs)]
    tournament = Tournament.objects.open(
        organiser, name="Liga", pairs=names, tables=tables, mocas_to_win=mocas_to_win
    )
    ids = list(tournament.pairs.values_list("pk", flat=True))
    nights = list(tournament.tables.values_list("night", flat=True))
    for number, drawn in enumerate(draw.round_robin(ids), 1):
        round = Round.objects.create(tournament=tournament, number=number, phase=Round.ROUND_ROBIN)
        round.byes.set(drawn.byes)
        series = Series.objects.bulk_create(
            Series(round=round, number=n, a_id=a, b_id=b, table_id=None)
            for n, (a, b) in enumerate(drawn.meetings, 1)
        )
        winners = ["a"] * (mocas_to_win - 1) + ["b", "a"]
        matches = Match.objects.bulk_create(
            Match(
                host=organiser,
                night_id=nights[(one.number - 1) % len(nights)],
                status=Match.WON,
                winner=side,
                games_a=4 if side == "a" else 0,
                games_b=4 if side == "b" else 0,
                version=3,
            )
            for one in series
            for side in winners
        )
        Seat.objects.bulk_create(
            Seat(match=match, position=position, name=position)
            for match in matches
            for position in ("a1", "a2", "b1", "b2")
        )
        Rubber.objects.bulk_create(
            Rubber(series=one, match=match)
            for index, one in enumerate(series)
            for match in matches[index * len(winners) : (index + 1) * len(winners)]
        )
    return tournament
