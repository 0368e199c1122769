"""The models: people, nights, matches and what a match is made of.

``match.py`` holds the rubber and every change to it; ``queries.py`` how
matches are read; ``rows.py`` their seats, deals, notes and history; ``counts.py``
the rate limits' counts.
"""

from .base import (
    SEAT_CHOICES,
    SIDE_CHOICES,
    NotAllowed,
    NotFound,
    clean_name,
    clean_night_name,
    clean_note,
    clean_place,
    clean_player_name,
    clean_seat_name,
    clean_text,
    explain,
    join_link_gone,
    new_token,
    no_rematch_in_a_tournament,
    no_such_note,
    no_such_seat_request,
    nothing_here,
    seat_link_gone,
    watch_link_gone,
)
from .counts import LimitCount
from .match import Match
from .nights import Night
from .people import User, renew_token
from .queries import MatchQuerySet, seat_side
from .rows import (
    Deal,
    Event,
    IdempotentRequest,
    RevokeNote,
    Seat,
    SeatRequest,
    SheetReading,
    row_state,
)

__all__ = [
    "SEAT_CHOICES",
    "SIDE_CHOICES",
    "Deal",
    "Event",
    "IdempotentRequest",
    "LimitCount",
    "Match",
    "MatchQuerySet",
    "Night",
    "NotAllowed",
    "NotFound",
    "RevokeNote",
    "Seat",
    "SeatRequest",
    "SheetReading",
    "User",
    "clean_name",
    "clean_night_name",
    "clean_note",
    "clean_place",
    "clean_player_name",
    "clean_seat_name",
    "clean_text",
    "explain",
    "join_link_gone",
    "new_token",
    "no_rematch_in_a_tournament",
    "no_such_note",
    "no_such_seat_request",
    "nothing_here",
    "renew_token",
    "row_state",
    "seat_link_gone",
    "seat_side",
    "watch_link_gone",
]
