"""The readings beside the sheet, as plain values: a rubber in a list, what became of
a request for a seat as its asker sees it, a match's history and a night with its tally.
Whatever renders them (the API, the exports) presents them and decides nothing, as for
the sheet itself (``sheet.py``).
"""

from dataclasses import dataclass

from django.db.models import prefetch_related_objects

from . import values
from .models import Match, Night, SeatRequest
from .sheet import SeatRequestLine, SeatView, seat_views
from .standings import tally


@dataclass(frozen=True)
class Score:
    """A side of a rubber in a list: its pair, its seats and its games."""

    side: str
    names: str  # the pair's names, e.g. "Ana & Rui"
    seats: list[SeatView]
    games: int


@dataclass(frozen=True)
class Summary:
    """A rubber in a list (a person's matches, a night's rubbers): its result as kept
    on the row, without its deals, the same whoever looks."""

    id: int
    status: str
    night: int
    created: object
    sides: list[Score]  # a, then b
    winner: str | None
    marks: tuple[str, ...]
    ended_by: str | None
    version: int
    walkover: str | None = None  # the side awarded it: the other did not turn up

    @property
    def by_side(self) -> dict[str, Score]:
        return {score.side: score for score in self.sides}


def summary(match: Match) -> Summary:
    """``match`` in a list, read with its host and its seats: no query of its own."""
    pairs = match.side_names()
    seats = match.seat_list()
    games = {"a": match.games_a, "b": match.games_b}
    return Summary(
        id=match.pk,
        status=match.status,
        night=match.night_id,
        created=match.created,
        sides=[
            Score(side, pairs[side], seat_views(seats, side), games[side]) for side in values.SIDES
        ],
        winner=match.winner or None,
        marks=tuple(match.marks),
        ended_by=match.names().get(match.ended_by_id) if match.ended_by_id else None,
        version=match.version,
        walkover=match.walkover or None,
    )


# What became of a request for a seat back: closed, when the asker got a seat
# another way before anyone answered.
SEAT_REQUEST_STATUSES = ("open", "approved", "turned_down", "closed")


@dataclass(frozen=True)
class SeatRequestView(SeatRequestLine):
    """A request for a seat back as its asker sees it: what became of it."""

    status: str  # one of SEAT_REQUEST_STATUSES


def seat_request(asked: SeatRequest, match: Match) -> SeatRequestView:
    """``asked``, a request for a seat of ``match`` (read with its seats)."""
    if asked.answered_at is None:
        status = "open"
    elif asked.approved is None:
        status = "closed"
    else:
        status = "approved" if asked.approved else "turned_down"
    name = match.seat_at(asked.position).name
    return SeatRequestView(
        id=asked.pk,
        seat=asked.position,
        name=name,
        asker=asked.user.name,
        created=asked.created,
        status=status,
    )


@dataclass(frozen=True)
class Change:
    """A line of a match's history: who changed what, and the values before and after."""

    at: object
    by: str | None
    action: str
    label: str  # the action in words, in the active language
    deal: int | None
    before: object
    after: object


def history(match: Match) -> list[Change]:
    """Every change to ``match`` (read with its host and seats), oldest first, in one
    query. People go by the names the sheet gives them, else by their own."""
    names = match.names()
    return [
        Change(
            at=event.at,
            by=names.get(event.by_id) or (event.by.name if event.by else None),
            action=event.action,
            label=event.get_action_display(),
            deal=event.deal,
            before=event.before,
            after=event.after,
        )
        for event in match.events.select_related("by").order_by("id")
    ]


@dataclass(frozen=True)
class NightNote:
    """A revoke note of one of the night's rubbers, withdrawn or not."""

    match: int
    id: int
    side: str
    deal: int
    text: str
    author: str | None
    withdrawn: bool
    withdrawn_at: object
    created: object


@dataclass(frozen=True)
class NightView:
    """A night: its rubbers in order, their revoke notes and its tally
    (``standings.tally``)."""

    id: int
    name: str
    place: str
    created: object
    rubbers: list[Summary]
    tally: dict
    notes: list[NightNote]


def read_night(night: Night) -> NightView:
    """``night``, with its matches (their hosts and seats) prefetched, and their notes
    read in one query unless they were too."""
    rubbers = night.rubbers()
    prefetch_related_objects(rubbers, "notes")
    notes = []
    for match in rubbers:
        names = match.names()  # who may note a revoke: the host and the seats
        notes += [
            NightNote(
                match=match.pk,
                id=note.pk,
                side=note.side,
                deal=note.deal,
                text=note.text,
                author=names.get(note.author_id),
                withdrawn=note.withdrawn,
                withdrawn_at=note.withdrawn_at,
                created=note.created,
            )
            for note in match.notes.all()
        ]
    return NightView(
        id=night.pk,
        name=night.name,
        place=night.place,
        created=night.created,
        rubbers=[summary(match) for match in rubbers],
        tally=tally(rubbers),
        notes=notes,
    )
