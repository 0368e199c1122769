"""Afterwards: the tournament's results and standings, as CSV for a spreadsheet (in the
reader's language, as the sheet's exports are) and as JSON (the API's body)."""

import json

from django.contrib.auth.decorators import login_required
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from .. import board as boards
from .. import export
from .organising import organised


def _filename(tournament, part, extension):
    """squarescores-2026-12-01-tournament-3-standings.csv: ASCII only, dated."""
    day = timezone.localdate(tournament.created).isoformat()
    return f"squarescores-{day}-tournament-{tournament.pk}-{part}.{extension}"


@login_required
@require_GET
def tournament_export(request, pk, part, format):
    """``part``: the results (a row a series) or the standings; JSON holds both."""
    tournament = organised(request, pk)
    board = boards.read(tournament)
    if format == "csv":
        rows = export.results_csv if part == "results" else export.standings_csv
        body, content_type = rows(board), "text/csv; charset=utf-8"
    else:
        body = json.dumps(
            export.as_json(request, board), cls=DjangoJSONEncoder, ensure_ascii=False, indent=2
        )
        content_type = "application/json"
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = (
        f'attachment; filename="{_filename(tournament, part, format)}"'
    )
    return response


@login_required
@require_GET
def results(request, pk):
    """Every round's series and how each went, newest first, and the negras."""
    board = boards.read(organised(request, pk))
    return render(request, "tournaments/results.html", {"board": board})
