"""One reading of a sheet: what a given viewer sees of a match, as plain values.

The pages render a ``Sheet`` and the API serializes it, so both show the same
names, numbers and offers. A member's own side is Nós and the other Eles; the
host without a seat, and anyone watching, see the pairs' names instead.

``read`` takes a match loaded by ``Match.objects.for_sheet()``, in two steps: what
everyone who may see it sees (``shared``, plain data, which a change keeps beside its
match for the fetches of the other server processes), then what one viewer sees of that
(``view``). An entry's or a redeal's answer is ``played``: what was kept at the version
it locked, with what it changed. For someone who may act in the match it also says what
undo would take back and which requests for a seat are open: read with the sheet by
``for_sheet(acting=True)``, else a query each. The readings beside it (a rubber in a
list, a request for a seat, a history, a night) are in ``summaries.py``.
"""

from dataclasses import dataclass, field
from datetime import datetime

from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from . import places, rosters, rules, values
from .models import Event, Match, User


@dataclass(frozen=True)
class Key:
    """A big button: the games it enters for a band of card points."""

    games: int
    label: str
    hint: str  # the band in words, for screen readers
    band: str  # the band as the key shows it, short enough for a quarter of a phone
    sweep: bool = False


@dataclass(frozen=True)
class SeatView:
    position: str
    name: str
    user: int | None


@dataclass
class Side:
    side: str
    label: str  # Nós or Eles to a member, else the pair's names
    names: str  # the pair's names, e.g. "Ana & Rui"
    seats: list[SeatView]
    games: int
    winner: bool
    flag: bool  # a bandeira won the rubber
    hat: bool  # a chapéu
    entered: int | None  # this side's cell of the current deal
    entered_by: str | None
    keys: list[Key]  # what this viewer may enter for this side now

    @property
    def beyond(self) -> bool:
        """More games than a cross has arm ends (after tie extras)."""
        return self.games > 4


@dataclass(frozen=True)
class Cell:
    side: str
    label: str
    games: int | None
    by: str | None


@dataclass
class Row:
    number: int
    cells: list[Cell]  # in the viewer's order
    running: list[int] | None  # totals after this deal, in the viewer's order
    complete: bool
    tie: bool
    sweep: bool
    redeal: bool  # dealt again: nothing scored, the deal passed on
    dealer: str  # the seat
    dealer_name: str

    def cell(self, side) -> Cell:
        return next(cell for cell in self.cells if cell.side == side)

    @property
    def by_side(self) -> dict[str, Cell]:
        """The cells by side (a, b), whatever the viewer's order."""
        return {cell.side: cell for cell in self.cells}


@dataclass(frozen=True)
class Undo:
    """The entry undo would take back: games in a side's column, or a redeal (which
    has no side and no games)."""

    deal: int
    side: str  # empty for a redeal, so the undo form posts no side
    label: str | None
    games: int | None
    by: str
    redeal: bool = False

    @property
    def text(self) -> str:
        """What the undo button says."""
        if self.redeal:
            return _("Undo %(name)s's redeal of deal %(number)s") % {
                "name": self.by,
                "number": self.deal,
            }
        return _("Undo %(name)s's %(games)s for %(label)s in deal %(number)s") % {
            "name": self.by,
            "games": self.games,
            "label": self.label,
            "number": self.deal,
        }

    @property
    def column(self) -> str | None:
        """The side whose column the entry is in; None for a redeal, in neither."""
        return self.side or None


@dataclass(frozen=True)
class SeatRequestLine:
    """A request for a seat back: which seat, by its name, who asks and when."""

    id: int
    seat: str
    name: str  # the seat's name
    asker: str  # the name the asker goes by
    created: object


@dataclass(frozen=True)
class SeatAsked(SeatRequestLine):
    """Someone asking for a held seat back: the table sees it until it is answered."""

    held: bool  # someone holds the seat now (else it was freed meanwhile)


@dataclass(frozen=True)
class Note:
    id: int
    side: str
    label: str
    deal: int
    text: str
    author: str | None
    withdrawn: bool
    withdrawn_at: object
    created: object
    may_withdraw: bool


@dataclass
class Sheet:
    id: int
    night: int
    created: object
    target: int
    direction: str
    first_dealer: str
    ended_at: object
    version: int
    status: str
    winner: str | None
    marks: tuple[str, ...]
    ended_by: str | None
    watching: bool
    hosting: bool
    seat: str | None  # the viewer's seat
    sides: list[Side]  # the viewer's side first
    rows: list[Row]
    current: int | None  # the deal being entered; None once the rubber is over
    pending: int  # extra games the current deal is worth
    dealer: str | None
    leader: str | None
    dealer_name: str | None
    leader_name: str | None
    undo: Undo | None
    notes: list[Note]
    next: int | None  # the next rubber of the night, once started (this one is closed)
    may_follow: bool  # the viewer may open the next rubber (they sit or host there)
    redeal_rule: str  # after a redeal: the next player deals, or the same one (melar)
    bandeira_at_120: bool  # the house rule: all 120 points a bandeira, every trick or not
    join_token: str | None  # the night's links: the host's alone, None for anyone else
    watch_token: str | None
    seat_requests: list[SeatAsked] = field(default_factory=list)  # for the host and members
    crosses_text: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    # Who made the entry an undo would take back (whoever looks: the author or the host
    # see the undo): part of each viewer's point of view (``fragments``).
    latest_by: int | None = None
    # A club tournament's rubber: what comes next is the tournament's to say, not a rematch.
    in_tournament: bool = False
    walkover: str | None = None  # the side awarded the rubber: the other did not turn up
    # Where the rubber stands beyond its night (a club tournament's table, round, moca and
    # series), as the app it belongs to says (``places``); None for an ordinary rubber.
    tournament: object | None = None
    # A club's rubber: its club, the roster's player at each seat, and the chance each
    # side had before the first deal, as the club's roster says (``rosters``).
    club: int | None = None
    players: dict[str, int] | None = None
    forecast: dict[str, float] | None = None

    @property
    def acting(self) -> bool:
        """The viewer may act in this match: its host or a member."""
        return not self.watching and (self.hosting or self.seat is not None)

    @property
    def in_play(self) -> bool:
        return self.status == Match.IN_PLAY

    @property
    def seat_name(self) -> str | None:
        """The name of the viewer's seat: who they are at this table, whatever their
        account is called (a phone handed round the table)."""
        if self.seat is None:
            return None
        seats = self.side(self.seat[0]).seats
        return next(seat.name for seat in seats if seat.position == self.seat)

    @property
    def active_notes(self) -> list[Note]:
        return [note for note in self.notes if not note.withdrawn]

    @property
    def may_correct(self) -> bool:
        return self.hosting and self.status != Match.ENDED and bool(self.rows)

    @property
    def may_redeal(self) -> bool:
        """The viewer may record that the current deal was dealt again: while it is in
        play and neither cell of the current deal is filled."""
        return (
            self.acting
            and self.in_play
            and self.current is not None
            and self.current <= rules.MAX_DEALS
            and all(side.entered is None for side in self.sides)
        )

    @property
    def may_end(self) -> bool:
        return self.acting and self.in_play

    @property
    def may_rematch(self) -> bool:
        return self.hosting and not self.in_play and self.next is None and not self.in_tournament

    @property
    def walkover_names(self) -> str:
        """The pair that won by walkover, as the table names it."""
        return self.by_side[self.walkover].names if self.walkover else ""

    @property
    def chances(self) -> list[tuple[str, int]]:
        """A club rubber's forecast as the viewer reads it: each side's label and chance
        in whole percents (the two make 100), the viewer's side first; [] for others."""
        if not self.forecast:
            return []
        first = round(100 * self.forecast[self.sides[0].side])
        return [(self.sides[0].label, first), (self.sides[1].label, 100 - first)]

    def side(self, side) -> Side:
        return next(view for view in self.sides if view.side == side)

    @property
    def by_side(self) -> dict[str, Side]:
        """The sides by name (a, b), whatever the viewer's order."""
        return {view.side: view for view in self.sides}

    @property
    def winner_side(self) -> Side | None:
        return self.side(self.winner) if self.winner else None

    @property
    def loser_side(self) -> Side | None:
        return self.side(rules.other(self.winner)) if self.winner else None


def keys(pending: int) -> list[Key]:
    """The big buttons of a side: the games for each band of points, extras added in sight."""

    def label(games):
        return f"{games}+{pending}={games + pending}" if pending else str(games)

    return [
        Key(0, "0", _("60 or less"), "0–60"),
        Key(1 + pending, label(1), _("61 to 90"), "61–90"),
        Key(2 + pending, label(2), _("91 or more"), "91–120"),
        Key(
            rules.BANDEIRA_GAMES + pending,
            label(rules.BANDEIRA_GAMES),
            _("every trick: bandeira"),
            "bandeira",
            sweep=True,
        ),
    ]


def describe(sides: list[Side], pending: int, marks) -> str:
    """The crosses in words, for screen readers and anyone who cannot see the dots."""
    text = ", ".join(
        ngettext("%(side)s: %(games)s game", "%(side)s: %(games)s games", side.games)
        % {"side": side.label, "games": side.games}
        for side in sides
    )
    words = [text]
    if pending:
        words.append(
            ngettext("%(count)s extra game pending", "%(count)s extra games pending", pending)
            % {"count": pending}
        )
    if "bandeira" in marks:
        words.append(_("a flag for the bandeira"))
    if "shutout" in marks:
        words.append(_("a cat face on both crosses for the shutout"))
    if "chapeu" in marks:
        words.append(_("a hat for the chapéu"))
    return ". ".join(capfirst(sentence) for sentence in words) + "."


def seat_views(seats, side) -> list[SeatView]:
    """The seats of ``side``, in order, with who holds each."""
    return [SeatView(seat.position, seat.name, seat.user_id) for seat in seats if seat.side == side]


def names_of(match: Match) -> dict[int, str]:
    """Who entered what, by name: ``Match.names``, and an account's own name for
    anyone else whose entries are on the sheet (one query, only if there is one)."""
    names = match.names()
    authors = {
        user_id
        for deal in match.deal_list()
        for user_id in (deal.a_by_id, deal.b_by_id)
        if user_id is not None
    }
    authors.update(note.author_id for note in match.notes.all())
    if match.ended_by_id:
        authors.add(match.ended_by_id)
    strangers = authors - set(names)
    if strangers:
        names.update((user.pk, user.name) for user in User.objects.filter(pk__in=strangers))
    return names


def club_of(match: Match) -> dict:
    """A club's rubber: its club, players and forecast (``Sheet``); nothing for others."""
    kept = rosters.read(match)
    if kept is None:
        return {}
    players = {seat.position: seat.player_id for seat in match.seat_list()}
    return {"club": kept["club"], "players": players, "forecast": kept["forecast"]}


def read(match: Match, user=None, *, watching: bool = False) -> Sheet:
    """What ``user`` sees of ``match`` (read by ``Match.objects.for_sheet()``);
    with ``watching``, what the watch link shows anyone."""
    acting = not watching and user is not None and match.can_see(user)
    return view(shared(match, acting=acting), user, watching=watching)


def shared(match: Match, *, acting: bool = True) -> dict:
    """What everyone who may see ``match`` (read by ``Match.objects.for_sheet()``) sees
    of it, whoever they are, as plain data (JSON's own values, times in ISO 8601, and
    the ``tournament`` place as its app says it), from which ``view`` makes each
    viewer's ``Sheet``. With ``acting`` (read with ``for_sheet(acting=True)``), also
    what only its host and members see: what undo would take back and the requests for
    a seat still open."""
    seats = match.seat_list()
    names = names_of(match)
    following = getattr(match, "following", None)
    # Once the next rubber has started this one is closed: nothing in it is undone.
    undoing = acting and match.status != Match.ENDED and following is None
    holders = {seat.user_id for seat in seats if seat.user_id}
    return {
        "id": match.pk,
        "night": match.night_id,
        "created": match.created.isoformat(),
        "target": match.target,
        "direction": match.direction,
        "first_dealer": match.first_dealer,
        "ended_at": match.ended_at.isoformat() if match.ended_at else None,
        "ended_by": names.get(match.ended_by_id) if match.ended_by_id else None,
        "host": match.host_id,
        "seats": [
            {"position": seat.position, "side": seat.side, "name": seat.name, "user": seat.user_id}
            for seat in seats
        ],
        "pairs": match.side_names(),
        # Who is named where on the sheet, by account (JSON's keys are text).
        "names": {str(person): name for person, name in names.items()},
        **_played(match, names),
        "acting": acting,
        "latest": _undoable(match.latest_entry() if undoing else None, names),
        "notes": [
            {
                "id": note.pk,
                "side": note.side,
                "deal": note.deal,
                "text": note.text,
                "author_id": note.author_id,
                "author": names.get(note.author_id),
                "withdrawn": note.withdrawn,
                "withdrawn_at": note.withdrawn_at.isoformat() if note.withdrawn_at else None,
                "created": note.created.isoformat(),
            }
            for note in match.notes.all()
        ],
        "seat_requests": [
            {
                "id": asked.pk,
                "seat": asked.position,
                "asker": asked.user.name,
                "held": match.seat_at(asked.position).user_id is not None,
                "created": asked.created.isoformat(),
            }
            for asked in (match.open_seat_requests() if acting else ())
            if asked.user_id not in holders  # seated again meanwhile: nothing to answer
        ],
        "following": following
        and {
            "id": following.pk,
            "host": following.host_id,
            "members": [seat.user_id for seat in following.seats.all() if seat.user_id],
        },
        "redeal_rule": match.redeal_rule,
        "bandeira_at_120": match.bandeira_at_120,
        "join_token": match.join_token,
        "watch_token": match.watch_token,
        "in_tournament": match.night.tournament_table,
        "walkover": match.walkover or None,
        "tournament": places.place_of(match),
        "club": club_of(match),
    }


def played(match: Match) -> dict:
    """What ``match`` shows to those who may act on it (``shared``) as an entry or a
    redeal under way left it. Such a change reads under its lock only what it checks,
    the match, its seats and its deals, and beside them what the sheet showed at the
    version it locked, as the change that made that version kept it (``shown_before``,
    a ``SheetReading``): that, with the deals and all that follows from them read again,
    and the change's own event as what undo would take back (the notes, the seats, the
    requests for a seat and the names are as they were: such a change touches none).
    Without that reading, all of ``shared``."""
    before = match.shown_before
    if before is None:
        return shared(match, acting=True)
    names = {int(person): name for person, name in before["names"].items()}
    return {**before, **_played(match, names), "latest": _undoable(match.logged, names)}


def _played(match: Match, names: dict[int, str]) -> dict:
    """What ``match``'s deals make of its sheet: the deals with their running totals
    and dealers, the games, the result, and whose deal it is now."""
    deals = match.deal_list()
    sheet = [deal.as_rule() for deal in deals]
    in_play = match.status == Match.IN_PLAY
    current = rules.current_deal(sheet) if in_play else None
    return {
        "version": match.version,
        "status": match.status,
        "winner": match.winner or None,
        "marks": list(match.marks),
        "games": {"a": match.games_a, "b": match.games_b},
        "deals": [
            {
                "number": deal.number,
                "a": deal.a,
                "b": deal.b,
                "a_by": names.get(deal.a_by_id),
                "b_by": names.get(deal.b_by_id),
                "complete": deal.complete,
                "tie": deal.tie,
                "sweep": deal.sweep,
                "redeal": deal.redeal,
                "running": running,
                "dealer": match.dealer(deal.number),
            }
            for deal, running in zip(deals, rules.running_totals(deals), strict=True)
        ],
        "current": current,
        "pending": rules.pending_extra(sheet) if in_play else 0,
        "dealer": match.dealer(current) if current else None,
        "leader": match.leader(current) if current else None,
    }


def _undoable(latest: Event | None, names: dict[int, str]) -> dict | None:
    """The entry (or redeal) ``latest``, as undo would take it back."""
    if latest is None:
        return None
    redeal = latest.action == Event.REDEAL
    return {
        "by_id": latest.by_id,
        "by": names.get(latest.by_id),
        "deal": latest.deal,
        "redeal": redeal,
        "side": None if redeal else latest.after["side"],
        "games": None if redeal else latest.after[latest.after["side"]],
    }


def may_see(shown: dict, user) -> bool:
    """Whether ``user`` may see the match ``shown`` describes: its host or a member."""
    person = _person(user)
    return person is not None and (
        person == shown["host"] or any(seat["user"] == person for seat in shown["seats"])
    )


def _person(user) -> int | None:
    return user.pk if user is not None and user.is_authenticated else None


def view(shown: dict, user=None, *, watching: bool = False) -> Sheet:
    """What ``user`` sees of the match ``shown`` describes (``shared``); with
    ``watching``, what the watch link shows anyone."""
    person = None if watching else _person(user)
    seats = shown["seats"]
    seat = next((seat for seat in seats if person and seat["user"] == person), None)
    hosting = person is not None and shown["host"] == person
    mine = seat["side"] if seat else None
    order = (mine, rules.other(mine)) if mine else values.SIDES
    pairs = shown["pairs"]
    labels = {mine: "Nós", rules.other(mine): "Eles"} if mine else pairs
    seat_names = {held["position"]: held["name"] for held in seats}
    in_play = shown["status"] == Match.IN_PLAY
    current, pending, marks = shown["current"], shown["pending"], tuple(shown["marks"])
    deals = shown["deals"]
    now = deals[-1] if deals and deals[-1]["number"] == current else None
    acting = seat is not None or hosting
    if acting and not shown["acting"]:
        raise ValueError("a sheet for its host or a member needs what only they see")

    sides = []
    for side in order:
        entered = now[side] if now else None
        may_enter = in_play and (hosting or side == mine) and entered is None
        won = shown["winner"] == side
        sides.append(
            Side(
                side=side,
                label=labels[side],
                names=pairs[side],
                seats=[
                    SeatView(held["position"], held["name"], held["user"])
                    for held in seats
                    if held["side"] == side
                ],
                games=shown["games"][side],
                winner=won,
                flag=won and "bandeira" in marks,
                hat=won and "chapeu" in marks,
                entered=entered,
                entered_by=now[f"{side}_by"] if now else None,
                keys=keys(pending) if may_enter else [],
            )
        )

    rows = [
        Row(
            number=deal["number"],
            cells=[Cell(side, labels[side], deal[side], deal[f"{side}_by"]) for side in order],
            running=[deal["running"][side] for side in order] if deal["complete"] else None,
            complete=deal["complete"],
            tie=deal["tie"],
            sweep=deal["sweep"],
            redeal=deal["redeal"],
            dealer=deal["dealer"],
            dealer_name=seat_names[deal["dealer"]],
        )
        for deal in deals
    ]

    following = shown["following"]
    latest = shown["latest"] if acting else None
    undo = None
    if latest is not None and (latest["by_id"] == person or hosting):
        by = latest["by"] or _("someone")
        if latest["redeal"]:
            undo = Undo(latest["deal"], "", None, None, by, redeal=True)
        else:
            side = latest["side"]
            undo = Undo(latest["deal"], side, labels[side], latest["games"], by)

    notes = [
        Note(
            id=note["id"],
            side=note["side"],
            label=labels[note["side"]],
            deal=note["deal"],
            text=note["text"],
            author=note["author"],
            withdrawn=note["withdrawn"],
            withdrawn_at=_when(note["withdrawn_at"]),
            created=_when(note["created"]),
            may_withdraw=acting
            and not note["withdrawn"]
            and (note["author_id"] == person or hosting),
        )
        for note in shown["notes"]
    ]

    seat_requests = (
        [
            SeatAsked(
                id=asked["id"],
                seat=asked["seat"],
                name=seat_names[asked["seat"]],
                asker=asked["asker"],
                held=asked["held"],
                created=_when(asked["created"]),
            )
            for asked in shown["seat_requests"]
        ]
        if acting
        else []
    )

    dealer, leader = shown["dealer"], shown["leader"]
    return Sheet(
        id=shown["id"],
        night=shown["night"],
        created=_when(shown["created"]),
        target=shown["target"],
        direction=shown["direction"],
        first_dealer=shown["first_dealer"],
        ended_at=_when(shown["ended_at"]),
        version=shown["version"],
        status=shown["status"],
        winner=shown["winner"],
        marks=marks,
        ended_by=shown["ended_by"],
        watching=watching,
        hosting=hosting,
        seat=seat["position"] if seat else None,
        sides=sides,
        rows=rows,
        current=current,
        pending=pending,
        dealer=dealer,
        leader=leader,
        dealer_name=seat_names[dealer] if dealer else None,
        leader_name=seat_names[leader] if leader else None,
        undo=undo,
        notes=notes,
        next=following["id"] if following else None,
        may_follow=bool(
            following and acting and (person == following["host"] or person in following["members"])
        ),
        redeal_rule=shown["redeal_rule"],
        bandeira_at_120=shown["bandeira_at_120"],
        join_token=shown["join_token"] if hosting else None,
        watch_token=shown["watch_token"] if hosting else None,
        seat_requests=seat_requests,
        crosses_text=describe(sides, pending, marks),
        labels=labels,
        latest_by=latest["by_id"] if latest is not None else None,
        in_tournament=shown["in_tournament"],
        walkover=shown["walkover"],
        tournament=shown["tournament"],
        **shown["club"],
    )


def _when(text):
    return None if text is None else datetime.fromisoformat(text)
