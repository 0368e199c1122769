"""Exports: a rubber or a night as CSV (a row per deal) or JSON, and a person's own data.

The JSON bodies are the API's: the match serializer and the night's reading, so a
program that reads the API reads an export too. Tokens are left out: an export
file travels, and the join link would travel with it.
"""

import csv

from django.db.models import Prefetch
from django.utils import timezone

from . import rules
from . import serializers as s
from .models import Match, Night
from .sheet import read

CSV_COLUMNS = [
    "night",
    "match",
    "deal",
    "dealer",
    "side_a",
    "a",
    "side_b",
    "b",
    "tie",
    "sweep",
    "total_a",
    "total_b",
    "redeal",  # last, so the columns before it keep their places
]

# A spreadsheet runs a cell starting with one of these as a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _text(value):
    """Free text (names) made safe to open in a spreadsheet."""
    return f"'{value}" if value.startswith(FORMULA_START) else value


def _flag(value):
    return "true" if value else "false"


def full(matches):
    """Matches with everything a sheet shows, in a fixed number of queries."""
    return matches.for_sheet().select_related("night")


def night_rubbers(night):
    return full(Match.objects.filter(night=night).order_by("created", "pk"))


def deal_rows(matches):
    """A row per deal of each match, with the running totals after it."""
    for match in matches:
        names = match.side_names()
        seated = {seat.position: seat.name for seat in match.seat_list()}
        deals = match.deal_list()
        for deal, totals in zip(deals, rules.running_totals(deals), strict=True):
            yield [
                _text(match.night.name),
                match.pk,
                deal.number,
                _text(seated[match.dealer(deal.number)]),
                _text(names["a"]),
                "" if deal.a is None else deal.a,
                _text(names["b"]),
                "" if deal.b is None else deal.b,
                _flag(deal.tie),
                _flag(deal.sweep),
                totals["a"],
                totals["b"],
                _flag(deal.redeal),
            ]


def write_csv(matches, out):
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    writer.writerows(deal_rows(matches))


def match_json(match):
    """The body of GET /api/matches/{id}/ as the watch link shows it (no tokens)."""
    return s.MatchSerializer(read(match, watching=True)).data


def nights_with_rubbers(nights):
    rubbers = Match.objects.select_related("host").prefetch_related("seats")
    return nights.prefetch_related(Prefetch("matches", queryset=rubbers))


def night_json(night):
    """The body of GET /api/nights/{id}/."""
    return s.NightSerializer(s.night_reading(night)).data


def personal_data(user):
    """Everything of the person's own: their profile, every match they hosted or
    played as the API shows it, and the nights those matches belong to."""
    matches = full(Match.objects.played_by(user))
    nights = nights_with_rubbers(Night.objects.visible_to(user).order_by("created", "pk"))
    return {
        "exported": timezone.now().isoformat(),
        "profile": {
            "id": user.pk,
            "username": user.username,
            "name": user.name,
            "guest": user.is_guest,
            "email": user.email,
            "joined": user.date_joined.isoformat(),
        },
        "matches": [match_json(match) for match in matches],
        "nights": [night_json(night) for night in nights],
    }
