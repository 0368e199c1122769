"""The models: a tournament and what it is made of.

``tournament.py`` holds the tournament and every change to it; ``rows.py`` its pairs,
tables, rounds, series and rubbers; ``progress.py`` reads where it stands from them.
"""

from .progress import Progress, SeriesState, progress
from .rows import Negra, Pair, Round, Rubber, Series, Table, round_name
from .tournament import (
    KNOCKOUT_SIZES,
    MOST_MOCAS,
    MOST_PAIRS,
    MOST_TABLES,
    Tournament,
    read_pairs,
    split_pair,
    topic,
    tournament_link_gone,
)

__all__ = [
    "KNOCKOUT_SIZES",
    "MOST_MOCAS",
    "MOST_PAIRS",
    "MOST_TABLES",
    "Negra",
    "Pair",
    "Progress",
    "Round",
    "Rubber",
    "Series",
    "SeriesState",
    "Table",
    "Tournament",
    "progress",
    "read_pairs",
    "round_name",
    "split_pair",
    "topic",
    "tournament_link_gone",
]
