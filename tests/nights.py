"""Hand-made nights with known answers, shared by the history, standings and export tests."""

from matches import rules, values

SWAP_PARTNERS = {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"}


def play(match, by, *cells):
    """Enter each (side, games[, "sweep"]) in the next deal; 0 for both sides is a tie."""
    for side, games, *sweep in cells:
        number = rules.current_deal(match.sheet())
        match.record(by, deal=number, side=side, games=games, sweep=bool(sweep))


def four_rubbers(match, ana, ze):
    """A night of four rubbers, Ana hosting from a1:

    1. Ana & Rui beat Zé & Maria 4–0 after a tie: a shutout.
    2. Partners swapped (Ana & Zé against Rui & Maria): Rui & Maria take a bandeira.
    3. Same pairs: 1–2 when Zé ends it early.
    4. Back to Ana & Rui against Zé & Maria: 4–1, a chapéu.
    """
    play(match, ana, ("a", 0), ("b", 0), ("a", 3), ("a", 1))
    second = match.rematch(ana, SWAP_PARTNERS)
    play(second, ana, ("b", 4, "sweep"))
    third = second.rematch(ana)
    play(third, ana, ("a", 1), ("b", 2))
    third.end(ze)
    fourth = third.rematch(ana, SWAP_PARTNERS)
    play(fourth, ana, ("b", 1), ("a", 2), ("a", 2))
    return [match, second, third, fourth]


def many_rubbers(night, host, players, count):
    """``count`` finished rubbers in ``night``, written in bulk with their stored
    results (the lists and tallies read only those), for the flat-query tests."""
    from matches.models import Match, Seat

    rubbers = Match.objects.bulk_create(
        Match(
            night=night,
            host=host,
            status=Match.WON,
            games_a=4 if number % 3 else 1,
            games_b=0 if number % 3 else 4,
            winner="a" if number % 3 else "b",
            marks=["shutout"] if number % 3 else [],
        )
        for number in range(count)
    )
    Seat.objects.bulk_create(
        Seat(match=match, position=position, name=player.name, user=player)
        for match in rubbers
        for position, player in zip(values.SEATS, players, strict=True)
    )
    return rubbers
