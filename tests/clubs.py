"""Building clubs for the tests: a roster, and club rubbers played to the end."""

from clubs.models import Club
from matches import rules
from matches.models import Match

ROSTER = ["Ana", "Rui", "Zé", "Maria", "Olga", "Tó", "Inês", "Nuno"]


def club_of(organiser, names=ROSTER, name="Café Central"):
    """A club ``organiser`` opens, with ``names`` on its roster: (club, {name: player})."""
    club = Club.objects.open(organiser, name)
    players = {name: club.add_player(organiser, name) for name in names}
    return club, players


def club_rubber(host, club, a1, a2, b1, b2) -> Match:
    """A club rubber of the four players given (Player rows), hosted by ``host``."""
    from clubs.roster import Keeper

    names, ids = Keeper().seat(host, club.pk, {"a1": a1.pk, "a2": a2.pk, "b1": b1.pk, "b2": b2.pk})
    return Match.objects.start(host, names, players=ids)


def win(match, by, side="a"):
    """Side ``side`` wins the rubber: two deals of 2 games (4 in all)."""
    for _ in range(2):
        match.record(by, deal=rules.current_deal(match.sheet()), side=side, games=2)
    match.refresh_from_db()
    return match
