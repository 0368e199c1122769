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
