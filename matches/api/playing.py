"""Playing: entering a deal's games, undoing the latest entry, a redeal, the host's
corrections, revoke notes, ending a rubber early, and the calculator."""

from rest_framework import status
from rest_framework.response import Response

from .. import rules
from ..models import Match, no_such_note
from ..sheet import read
from .base import act, answers, anyone, endpoint, row_id, valid, visible_match
from .bodies import (
    CALCULATOR,
    CalculatorSerializer,
    CorrectionSerializer,
    EntrySerializer,
    NoteCreateSerializer,
    RedealSerializer,
    Seen,
    UndoSerializer,
)
from .readings import CalculationSerializer, MatchSerializer, NoteSerializer


@answers(201, MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "enter_games", "Enter a deal's games", "playing", EntrySerializer)
def entries(request, id):
    """A member enters their own side's column, the host either side's."""
    return act(
        request,
        id,
        lambda match, **data: match.record(request.user, **data),
        EntrySerializer,
        status.HTTP_201_CREATED,
    )


@answers(200, MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "undo_entry", "Undo the latest entry", "playing", UndoSerializer)
def undo(request, id):
    """Its author or the host, while nothing has been entered after it."""
    return act(request, id, lambda match, **data: match.undo(request.user, **data), UndoSerializer)


@answers(200, MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "redeal", "Record a redeal", "playing", RedealSerializer)
def redeal(request, id):
    """The current deal was dealt again (a weak hand called, a misdeal): nothing is
    scored, and the deal passes to the next dealer in the table's direction. A member
    or the host, while neither cell of the deal is filled; undone by undo like an
    entry."""
    return act(
        request, id, lambda match, **data: match.redeal(request.user, **data), RedealSerializer
    )


@answers(200, MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("PUT", "correct_deal", "Correct a deal", "playing", CorrectionSerializer)
def correct(request, id, number):
    """The host sets both cells of a deal at once, under the same rules."""
    return act(
        request,
        id,
        lambda match, **data: match.correct(request.user, number=number, **data),
        CorrectionSerializer,
    )


@answers(201, NoteSerializer, 400, 401, 403, 404)
@endpoint("POST", "add_note", "Note a revoke", "playing", NoteCreateSerializer)
def notes(request, id):
    """Beside the sheet: a note never changes the tally."""
    match = visible_match(request, id)
    note = match.add_note(request.user, **valid(NoteCreateSerializer, request))
    sheet = read(Match.objects.for_sheet(acting=True).get(pk=match.pk), request.user)
    written = next(view for view in sheet.notes if view.id == note.pk)
    return Response(NoteSerializer(written).data, status=status.HTTP_201_CREATED)


@answers(204, None, 401, 403, 404)
@endpoint("DELETE", "withdraw_note", "Withdraw a note", "playing")
def note(request, id, note_id):
    """Its author or the host; the note and its withdrawal stay in the history."""
    match = visible_match(request, id)
    match.withdraw_note(request.user, row_id(note_id, no_such_note()))
    return Response(status=status.HTTP_204_NO_CONTENT)


@answers(200, MatchSerializer, 400, 401, 403, 404, 409)
@endpoint("POST", "end_match", "End the match", "playing", Seen)
def end(request, id):
    """A member or the host ends a rubber before the target; nobody wins it."""
    return act(request, id, lambda match, **data: match.end(request.user, **data), Seen)


@answers(200, CalculationSerializer, 400)
@endpoint("POST", "calculate", "Points or cards to games", "calculator", CALCULATOR)
@anyone()
def calculator(request):
    """Either the points or the cards of one side; no sign-in needed."""
    data = valid(CalculatorSerializer, request)
    calculation = rules.calculate(
        points=data.get("points"),
        cards=data.get("cards"),
        every_trick=data["every_trick"],
        bandeira_at_120=data["bandeira_at_120"],
    )
    return Response(CalculationSerializer(calculation).data)
