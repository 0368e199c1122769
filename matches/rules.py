"""The rules of the Sueca scoresheet, as pure functions.

Nothing here knows about Django, requests or the database: every function takes
plain values and returns plain values, or raises a Refusal whose message a
player understands. The models apply these rules inside a transaction; the
views and the API only ever go through the models.

Messages are English templates marked with ``_`` (a no-op here, so that
``makemessages`` finds them) and formatted with ``params``; the Django side
translates the template before formatting it.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .values import (
    CLOCKWISE,
    COUNTERCLOCKWISE,
    NEXT_DEALER,
    SAME_DEALER,
    SIDES,
    Conflict,
    InvalidInput,
    check_side,
    read_games,
    whole_number,
)


def _(message):
    return message


DECK_POINTS = 120
HALF = DECK_POINTS // 2
TARGET = 4
BANDEIRA_GAMES = 4
CARD_VALUES = {"aces": 11, "sevens": 10, "kings": 4, "jacks": 3, "queens": 2}
CARD_LABELS = {
    "aces": _("Aces"),
    "sevens": _("Sevens"),
    "kings": _("Kings"),
    "jacks": _("Jacks"),
    "queens": _("Queens"),
}
CARDS_PER_RANK = 4
# 1 and 119 cannot be made from cards: the smallest counting card is a queen (2),
# and whatever is left for the other side of 120 is 119.
UNREACHABLE_POINTS = frozenset({1, DECK_POINTS - 1})

# Partners sit opposite each other, so the sides alternate around the table.
# Counter-clockwise (the Portuguese way) the turn passes to the player on the
# right: a1, then b1, then a2, then b2. Clockwise (the Brazilian way) it
# passes to the left: a1, b2, a2, b1.
TURN_ORDER = {
    COUNTERCLOCKWISE: ("a1", "b1", "a2", "b2"),
    CLOCKWISE: ("a1", "b2", "a2", "b1"),
}
DEFAULT_SIDE_NAMES = {"a": "side A", "b": "side B"}
MAX_DEALS = 99  # a rubber that long has stopped being a rubber: End match
MARKS = ("bandeira", "shutout", "chapeu")  # drawn on the crosses; they change no score


def other(side: str) -> str:
    return "b" if side == "a" else "a"


def side_of(seat: str) -> str:
    return seat[0]


# The calculator --------------------------------------------------------------


def card_count(rank: str) -> Callable[[object], int]:
    """The reader of how many cards of ``rank`` a side took, 0 to 4."""

    def read(count) -> int:
        return whole_number(count, CARD_LABELS[rank], 0, CARDS_PER_RANK)

    return read


def card_points(
    aces: object = 0, sevens: object = 0, kings: object = 0, jacks: object = 0, queens: object = 0
) -> int:
    """The card points of the counting cards a side took, each count 0..4."""
    counts = {"aces": aces, "sevens": sevens, "kings": kings, "jacks": jacks, "queens": queens}
    return sum(CARD_VALUES[rank] * card_count(rank)(count) for rank, count in counts.items())


def check_points(points: object) -> int:
    points = whole_number(points, _("Points"), 0, DECK_POINTS)
    if points in UNREACHABLE_POINTS:
        raise InvalidInput(
            _("Card points can't be %(points)s: no set of cards adds up to 1 or 119."),
            points=points,
        )
    return points


def games_for_points(
    points: object, every_trick: bool = False, bandeira_at_120: bool = False
) -> int:
    """Games a side wins for its card points in one deal.

    Every trick is a bandeira. All 120 points with a trick lost (it held no counting
    card) is 2 games, unless the table plays the house rule *bandeira at 120*."""
    points = check_points(points)
    if every_trick:
        if points < DECK_POINTS:
            raise InvalidInput(
                _("Every trick means all 120 points, not %(points)s."), points=points
            )
        return BANDEIRA_GAMES
    if bandeira_at_120 and points == DECK_POINTS:
        return BANDEIRA_GAMES
    if points > 90:
        return 2
    if points > HALF:
        return 1
    return 0


@dataclass(frozen=True)
class Calculation:
    points: int
    other_points: int
    games: int
    tie: bool


def check_card_names(names: Iterable[str]) -> None:
    """Only the five counting ranks can be counted; the others are worth nothing."""
    unknown = set(names) - set(CARD_VALUES)
    if unknown:
        raise InvalidInput(
            _("Only aces, sevens, kings, jacks and queens count, not %(names)s."),
            names=", ".join(sorted(map(str, unknown))),
        )


def calculate(
    points: object = None,
    cards: Mapping[str, object] | None = None,
    every_trick: bool = False,
    bandeira_at_120: bool = False,
) -> Calculation:
    """The calculator: from points, or from counts of cards, to games (under the
    table's house rule on 120 points)."""
    if (points is None) == (cards is None):
        raise InvalidInput(_("Give either the points or the cards, not both or neither."))
    if cards is not None:
        check_card_names(cards)
        points = card_points(**cards)
    games = games_for_points(points, every_trick=every_trick, bandeira_at_120=bandeira_at_120)
    points = int(points)
    return Calculation(
        points=points,
        other_points=DECK_POINTS - points,
        games=games,
        tie=points == HALF,
    )


# Deals -----------------------------------------------------------------------


@dataclass(frozen=True)
class Deal:
    """One row of the sheet: the games each side entered (None while empty).

    A redeal is a row of its own with both cells empty: the deal was dealt again
    with nothing scored. It is complete (the deal passes on) and worth nothing.
    """

    a: int | None = None
    b: int | None = None
    sweep: bool = False
    redeal: bool = False

    def cell(self, side: str) -> int | None:
        return self.a if side == "a" else self.b

    @property
    def complete(self) -> bool:
        return self.redeal or (self.a is not None and self.b is not None)

    @property
    def tie(self) -> bool:
        return self.a == 0 and self.b == 0

    @property
    def winner(self) -> str | None:
        if self.a:
            return "a"
        if self.b:
            return "b"
        return None

    @property
    def games(self) -> int:
        return (self.a or 0) + (self.b or 0)

    def with_cell(self, side: str, games: int) -> "Deal":
        cells = {"a": self.a, "b": self.b, side: games}
        return Deal(a=cells["a"], b=cells["b"], sweep=self.sweep)


def pending_extra(deals: Sequence[Deal]) -> int:
    """Extra games the deal after these is worth: one per tie in a row just before it.

    A redeal neither adds one nor breaks the run: the cards were dealt again, and
    the tie's extra still goes to whoever wins the next deal played.
    """
    extra = 0
    for deal in reversed(deals):
        if deal.redeal or not deal.complete:
            continue
        if not deal.tie:
            break
        extra += 1
    return extra


def cell_limit(pending: int) -> int:
    return BANDEIRA_GAMES + pending


def check_games(games: object, pending: int) -> int:
    """What a cell may hold: a whole number from 0 to 4 plus the pending extras."""
    games = read_games(games)
    limit = cell_limit(pending)
    if games > limit:
        if pending:
            raise InvalidInput(
                _(
                    "A deal can't be worth %(games)s games here: with %(pending)s extra "
                    "pending the most is %(limit)s."
                ),
                games=games,
                pending=pending,
                limit=limit,
            )
        raise InvalidInput(
            _(
                "A deal can't be worth %(games)s games here: with no tie pending "
                "the most is %(limit)s."
            ),
            games=games,
            limit=limit,
        )
    return games


def check_sweep(games: int, sweep: bool) -> None:
    if sweep and games < BANDEIRA_GAMES:
        raise InvalidInput(
            _("A bandeira (every trick) is worth at least 4 games, not %(games)s."),
            games=games,
        )


def is_sweep(games: int, sweep: bool, pending: int) -> bool:
    """A deal is a bandeira when marked so, or when only a sweep can explain its games."""
    return bool(sweep) or games >= BANDEIRA_GAMES + pending


def enter(
    deal: Deal | None,
    side: str,
    games: object,
    *,
    number: int,
    pending: int,
    sweep: bool = False,
    names: Mapping[str, str] = DEFAULT_SIDE_NAMES,
) -> Deal:
    """The deal after ``side`` enters ``games`` in it.

    At most one side wins games in a deal: a positive entry completes the deal
    and the other cell reads 0. A cell already filled is refused as already
    recorded, so a double tap or two phones at once count nothing twice.
    """
    side = check_side(side)
    deal = deal or Deal()
    if deal.redeal:
        raise Conflict(
            _("Deal %(number)s was dealt again: nothing can be entered in it."), number=number
        )
    games = check_games(games, pending)
    check_sweep(games, sweep)
    mine, theirs = deal.cell(side), deal.cell(other(side))
    if games and theirs:
        raise Conflict(
            _(
                "Deal %(number)s is already claimed: %(side)s won %(games)s in it. "
                "Only one side can win games in a deal."
            ),
            number=number,
            side=names[other(side)],
            games=theirs,
        )
    if mine == 0 and theirs:
        # The 0 was filled in when the other side claimed the deal.
        raise Conflict(
            _(
                "Deal %(number)s is already complete: %(winner)s won %(games)s in it, so "
                "the 0 for %(side)s is already on the sheet."
            ),
            number=number,
            winner=names[other(side)],
            games=theirs,
            side=names[side],
        )
    if mine is not None and mine != games:
        # Not a second tap of the same key: a partner's entry came first.
        raise Conflict(
            _(
                "Deal %(number)s already has %(games)s for %(side)s, so %(tapped)s was not "
                "entered: undo that entry first to change it."
            ),
            number=number,
            games=mine,
            side=names[side],
            tapped=games,
        )
    if mine is not None:
        raise Conflict(
            _(
                "Deal %(number)s already has %(games)s for %(side)s: it was already "
                "recorded, and nothing was counted twice."
            ),
            number=number,
            games=mine,
            side=names[side],
        )
    entered = deal.with_cell(side, games)
    if games:
        entered = entered.with_cell(other(side), 0)
        entered = Deal(entered.a, entered.b, sweep=is_sweep(games, sweep, pending))
    return entered


def redeal(
    deal: Deal | None, *, number: int, names: Mapping[str, str] = DEFAULT_SIDE_NAMES
) -> Deal:
    """Deal ``number`` dealt again with nothing scored (a weak hand called, a misdeal).

    Only while neither cell is filled: once a side has entered games the deal was
    played, and its entry must be undone first. A second redeal of the same deal
    (a double tap, two phones) is refused as already recorded.
    """
    deal = deal or Deal()
    if deal.redeal:
        raise Conflict(
            _(
                "Deal %(number)s was already dealt again: the redeal is on the sheet, "
                "and nothing was counted twice."
            ),
            number=number,
        )
    if deal.winner:
        raise Conflict(
            _(
                "Deal %(number)s is already recorded: %(side)s won %(games)s in it, "
                "so it can't be dealt again."
            ),
            number=number,
            side=names[deal.winner],
            games=deal.cell(deal.winner),
        )
    if deal.tie:
        raise Conflict(
            _("Deal %(number)s is already recorded as a tie, so it can't be dealt again."),
            number=number,
        )
    for side in SIDES:
        if deal.cell(side) is not None:
            raise Conflict(
                _(
                    "Deal %(number)s already has %(games)s for %(side)s, so it can't be "
                    "dealt again: undo that entry first."
                ),
                number=number,
                games=deal.cell(side),
                side=names[side],
            )
    return Deal(redeal=True)


# Rubbers ---------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    games: dict
    winner: str | None = None
    won_at: int | None = None
    marks: tuple = field(default=())

    @property
    def over(self) -> bool:
        return self.winner is not None


def running_totals(deals: Sequence[Deal]) -> list[dict[str, int]]:
    """Each side's games after each deal, in order: a deal still waiting adds nothing."""
    running = {"a": 0, "b": 0}
    after = []
    for deal in deals:
        if deal.complete and not deal.redeal:
            running = {"a": running["a"] + deal.a, "b": running["b"] + deal.b}
        after.append(running)
    return after


def totals(deals: Sequence[Deal]) -> dict[str, int]:
    after = running_totals(deals)
    return after[-1] if after else {"a": 0, "b": 0}


def result(deals: Sequence[Deal], target: int = TARGET) -> Result:
    """Totals, the winner (first side to reach the target in a complete deal) and marks.

    Marks change no score: "bandeira" when a deal was swept, "shutout" for a
    rubber won with the losers on 0 over two or more scoring deals (a gato in
    Brazil), "chapeu" for a win with the losers on 1.
    """
    running = {"a": 0, "b": 0}
    winner = won_at = None
    for number, deal in enumerate(deals, start=1):
        if deal.redeal or not deal.complete:
            continue
        running["a"] += deal.a
        running["b"] += deal.b
        if winner is None and max(running.values()) >= target:
            winner = "a" if running["a"] >= target else "b"
            won_at = number
            break
    games = totals(deals[:won_at] if won_at else deals)
    marks = []
    if winner:
        played = deals[:won_at]
        if any(deal.sweep for deal in played):
            marks.append("bandeira")
        loser_games = games[other(winner)]
        scoring_deals = sum(1 for deal in played if deal.winner == winner)
        if loser_games == 0 and scoring_deals >= 2:
            marks.append("shutout")
        if loser_games == 1:
            marks.append("chapeu")
    return Result(games=games, winner=winner, won_at=won_at, marks=tuple(marks))


def check_sheet(deals: Sequence[Deal], target: int = TARGET) -> Result:
    """Check a whole sheet after a correction: each cell within its limit, and no
    deal after the one that wins the rubber."""
    for number, deal in enumerate(deals, start=1):
        pending = pending_extra(deals[: number - 1])
        for side in SIDES:
            if deal.cell(side) is not None:
                games = check_games(deal.cell(side), pending)
                if deal.sweep and games:
                    check_sweep(games, deal.sweep)
        if deal.a and deal.b:
            raise InvalidInput(
                _("Only one side can win games in a deal: deal %(number)s has both."),
                number=number,
            )
    outcome = result(deals, target)
    if outcome.won_at is not None and outcome.won_at < len(deals):
        first, last = outcome.won_at + 1, len(deals)
        if first == last:
            raise InvalidInput(
                _(
                    "This would end the rubber at deal %(won_at)s, but deal %(later)s comes "
                    "after it: correct deal %(later)s first."
                ),
                won_at=outcome.won_at,
                later=first,
            )
        raise InvalidInput(
            _(
                "This would end the rubber at deal %(won_at)s, but deals %(later)s come "
                "after it: correct deals %(later)s first."
            ),
            won_at=outcome.won_at,
            later=f"{first}–{last}",
        )
    return outcome


def check_current(number: int, current: int) -> None:
    """An entry or a redeal names the deal it is for, and only the current one takes
    it: one meant for another deal (a late phone) is never counted elsewhere."""
    if number != current:
        raise Conflict(
            _("Deal %(number)s is not the current deal: the sheet is on deal %(current)s."),
            number=number,
            current=current,
        )


def current_deal(deals: Sequence[Deal]) -> int:
    """The number of the deal being entered: the last one if incomplete, else the next."""
    if deals and not deals[-1].complete:
        return len(deals)
    return len(deals) + 1


# Seats -----------------------------------------------------------------------


def dealer(number: int, first_dealer: str, direction: str = COUNTERCLOCKWISE, kept: int = 0) -> str:
    """The seat dealing deal ``number``: the deal passes on one seat after every deal,
    but for the ``kept`` deals before it that stayed with their dealer (redeals under
    the same-dealer rule, *melar*)."""
    order = TURN_ORDER[direction]
    return order[(order.index(first_dealer) + number - 1 - kept) % len(order)]


def leader(number: int, first_dealer: str, direction: str = COUNTERCLOCKWISE, kept: int = 0) -> str:
    """The seat leading the first trick: the next player in turn after the dealer
    (on the dealer's right counter-clockwise, on the left clockwise)."""
    order = TURN_ORDER[direction]
    dealing = dealer(number, first_dealer, direction, kept)
    return order[(order.index(dealing) + 1) % len(order)]


def kept_deals(deals: Sequence[Deal], number: int, redeal_rule: str = NEXT_DEALER) -> int:
    """How many of the deals before deal ``number`` stayed with their dealer: the
    redeals, when the same dealer deals again after one."""
    if redeal_rule != SAME_DEALER:
        return 0
    return sum(1 for deal in deals[: number - 1] if deal.redeal)
