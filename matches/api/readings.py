"""What the API answers: the shapes of API.md, each rendering a reading.

A match is a ``sheet.Sheet`` (``sheet.read``), a match in a list a ``summaries.Summary``,
a night a ``summaries.NightView``; the pages render the same readings. The serializers
here read those plain values by name (``source=`` where the API's name is another)
and decide nothing: what a viewer sees is the reading's to say.
"""

import threading

from rest_framework import serializers
from rest_framework.fields import SkipField

from .. import values
from ..models import Event
from ..summaries import SEAT_REQUEST_STATUSES
from .fields import MARK_CHOICES, SEAT_CHOICES, SIDE_CHOICES, STATUS_CHOICES, Events

# Refusals --------------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="A sentence saying why the request was refused.")


class ValidationErrorSerializer(ErrorSerializer):
    errors = serializers.DictField(
        required=False,
        help_text="The messages for each field that was refused, by field name.",
    )


# Accounts and the calculator ---------------------------------------------------------


class UserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class GuestTokenSerializer(serializers.Serializer):
    token = serializers.CharField()
    user = UserSerializer()


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()


class CalculationSerializer(serializers.Serializer):  # a rules.Calculation
    points = serializers.IntegerField()
    other_points = serializers.IntegerField()
    games = serializers.IntegerField()
    tie = serializers.BooleanField()


# A match ---------------------------------------------------------------------------


class SeatSerializer(serializers.Serializer):  # a sheet.SeatView
    seat = serializers.ChoiceField(SEAT_CHOICES, source="position")
    name = serializers.CharField()
    user = serializers.IntegerField(allow_null=True, help_text="The account holding the seat.")


# A side of a sheet (sheet.Side) or of a rubber in a list (summaries.Score).
class SideSerializer(serializers.Serializer):
    name = serializers.CharField(source="names", help_text="The pair's names, e.g. 'Ana & Rui'.")
    seats = SeatSerializer(many=True)
    games = serializers.IntegerField()


# The sides by name (a reading's by_side), whatever the viewer's order.
class SidesSerializer(serializers.Serializer):
    a = SideSerializer()
    b = SideSerializer()


class DealSerializer(serializers.Serializer):  # a sheet.Row, its cells by side
    number = serializers.IntegerField()
    a = serializers.IntegerField(source="by_side.a.games", allow_null=True)
    b = serializers.IntegerField(source="by_side.b.games", allow_null=True)
    complete = serializers.BooleanField()
    tie = serializers.BooleanField()
    sweep = serializers.BooleanField()
    redeal = serializers.BooleanField(
        help_text="Dealt again with nothing scored: both cells empty, and the deal passed on."
    )
    a_by = serializers.CharField(
        source="by_side.a.by", allow_null=True, help_text="Who entered side a's cell."
    )
    b_by = serializers.CharField(
        source="by_side.b.by", allow_null=True, help_text="Who entered side b's cell."
    )


class NoteSerializer(serializers.Serializer):  # a sheet.Note
    id = serializers.IntegerField()
    side = serializers.ChoiceField(SIDE_CHOICES)
    deal = serializers.IntegerField()
    text = serializers.CharField()
    author = serializers.CharField(allow_null=True)
    withdrawn = serializers.BooleanField()
    withdrawn_at = serializers.DateTimeField(allow_null=True)
    created = serializers.DateTimeField()


class UndoneSerializer(serializers.Serializer):  # a sheet.Undo
    deal = serializers.IntegerField()
    side = serializers.ChoiceField(
        SIDE_CHOICES, source="column", allow_null=True, help_text="Null for a redeal."
    )
    games = serializers.IntegerField(allow_null=True, help_text="Null for a redeal.")
    redeal = serializers.BooleanField(help_text="The entry is a redeal of the deal.")
    by = serializers.CharField(help_text="Who made the entry.")


class SeatRequestLineSerializer(serializers.Serializer):  # a sheet.SeatRequestLine
    id = serializers.IntegerField()
    seat = serializers.ChoiceField(SEAT_CHOICES)
    name = serializers.CharField(help_text="The seat's name.")
    asker = serializers.CharField(help_text="The name the asker goes by.")
    created = serializers.DateTimeField()


class SeatAskedSerializer(SeatRequestLineSerializer):  # a sheet.SeatAsked
    """An open request for a seat, on the sheet of the host and the members."""

    held = serializers.BooleanField(help_text="Someone holds the seat now, and would lose it.")


class HostOnly(serializers.CharField):
    """A value only some viewers get (the host's tokens): left out of the body, not
    null, where the reading has none for this viewer."""

    def get_attribute(self, instance):
        value = super().get_attribute(instance)
        if value is None:
            raise SkipField()
        return value


class MatchSummarySerializer(serializers.Serializer):  # a summaries.Summary
    """A match in a list: its result as stored on the row, without its deals."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(STATUS_CHOICES)
    night = serializers.IntegerField()
    created = serializers.DateTimeField()
    sides = SidesSerializer(source="by_side")
    winner = serializers.ChoiceField(SIDE_CHOICES, allow_null=True)
    marks = serializers.ListField(child=serializers.ChoiceField(MARK_CHOICES))
    ended_by = serializers.CharField(allow_null=True)
    walkover = serializers.ChoiceField(
        SIDE_CHOICES,
        allow_null=True,
        help_text="Ended because the other side did not turn up (a tournament's walkover): "
        "the side awarded it; null otherwise.",
    )
    version = serializers.IntegerField()


class MocasSerializer(serializers.Serializer):
    a = serializers.IntegerField()
    b = serializers.IntegerField()


class TournamentPlaceSerializer(serializers.Serializer):  # a tournament's places.Place
    """Where a tournament's rubber stands: its table, round, series and moca."""

    id = serializers.IntegerField(help_text="The tournament.")
    table = serializers.IntegerField(allow_null=True, help_text="The table's number.")
    round = serializers.IntegerField(help_text="The round's number.")
    series = serializers.IntegerField(help_text="The series' id.")
    moca = serializers.IntegerField(help_text="This rubber's number in its series, from 1.")
    mocas = MocasSerializer(help_text="The series' score in mocas won, by side.")


class SeatPlayersSerializer(serializers.Serializer):
    a1 = serializers.IntegerField()
    a2 = serializers.IntegerField()
    b1 = serializers.IntegerField()
    b2 = serializers.IntegerField()


class ForecastSerializer(serializers.Serializer):
    a = serializers.FloatField(min_value=0, max_value=1)
    b = serializers.FloatField(min_value=0, max_value=1)


class MatchSerializer(MatchSummarySerializer):
    """The whole sheet: seats, deals, totals, result, whose deal it is, and the notes.

    It serializes a ``sheet.Sheet``, the reading the pages render too.
    """

    target = serializers.IntegerField()
    direction = serializers.ChoiceField(list(values.DIRECTIONS))
    first_dealer = serializers.ChoiceField(SEAT_CHOICES)
    redeal = serializers.ChoiceField(
        list(values.REDEAL_RULES),
        source="redeal_rule",
        help_text="Who deals after a redeal: the house rule.",
    )
    bandeira_at_120 = serializers.BooleanField(
        help_text="The house rule on 120 points: a bandeira (4 games) whether or not every "
        "trick was taken; false, 2 games with a trick lost."
    )
    deals = DealSerializer(many=True, source="rows")
    current_deal = serializers.IntegerField(
        source="current",
        allow_null=True,
        help_text="The deal being entered; null once the rubber is over.",
    )
    pending_extra = serializers.IntegerField(
        source="pending",
        help_text="Extra games the current deal is worth, one per tie just before it.",
    )
    dealer = serializers.ChoiceField(SEAT_CHOICES, allow_null=True)
    leader = serializers.ChoiceField(SEAT_CHOICES, allow_null=True)
    ended_at = serializers.DateTimeField(allow_null=True)
    notes = NoteSerializer(many=True)
    undo = UndoneSerializer(
        allow_null=True, help_text="The entry the caller's undo would take back, if any."
    )
    next = serializers.IntegerField(
        allow_null=True, help_text="The next rubber of the night, once it has started."
    )
    seat_requests = SeatAskedSerializer(
        many=True,
        help_text="Requests for a seat back nobody has answered yet (empty but for the host "
        "and the members, who may answer them).",
    )
    tournament = TournamentPlaceSerializer(
        allow_null=True, help_text="A tournament's rubber: where it stands; null for others."
    )
    club = serializers.IntegerField(allow_null=True, help_text="A club's rubber: its club.")
    players = SeatPlayersSerializer(
        allow_null=True, help_text="A club's rubber: the roster's player at each seat."
    )
    forecast = ForecastSerializer(
        allow_null=True,
        help_text="A club's rubber: the chance each side had before the first deal, from "
        "the four ratings (it sums to 1).",
    )
    join_token = HostOnly(required=False, help_text="Host only.")
    watch_token = HostOnly(required=False, help_text="Host only.")
    events = Events()


# One MatchSerializer a thread: a serializer builds its fields anew each time one is made
# (a deep copy of every declared field, the nested ones too), about as much as answering
# with the sheet costs otherwise; its fields keep nothing of what they represent.
_built = threading.local()


def sheet_body(sheet, events) -> dict:
    """What ``MatchSerializer(sheet, context={"events": events}).data`` says."""
    serializer = getattr(_built, "match", None)
    if serializer is None:
        serializer = _built.match = MatchSerializer(context={})
    serializer.context["events"] = events
    return serializer.to_representation(sheet)


class MatchPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = MatchSummarySerializer(many=True)


class EventSerializer(serializers.Serializer):  # a summaries.Change
    at = serializers.DateTimeField()
    by = serializers.CharField(allow_null=True, help_text="Who made the change.")
    action = serializers.ChoiceField([action for action, _label in Event.ACTIONS])
    label = serializers.CharField(help_text="The action in words, in the active language.")
    deal = serializers.IntegerField(allow_null=True)
    before = serializers.JSONField(allow_null=True, help_text="The values before the change.")
    after = serializers.JSONField(allow_null=True, help_text="The values after the change.")


# Seats -----------------------------------------------------------------------------


class SeatLinkSerializer(serializers.Serializer):
    seat = serializers.ChoiceField(SEAT_CHOICES)
    link_token = serializers.CharField(help_text="Claims this seat once: see claim_seat.")
    url = serializers.URLField(help_text="The page of the link: one tap there takes the seat.")


class SeatRequestSerializer(SeatRequestLineSerializer):  # a summaries.SeatRequestView
    """A request for a seat back, as the asker (and the table) see it."""

    status = serializers.ChoiceField(
        SEAT_REQUEST_STATUSES,
        help_text="closed: the asker got a seat another way before anyone answered.",
    )


# Nights ----------------------------------------------------------------------------


class StandingSerializer(serializers.Serializer):  # a standings.Standing
    name = serializers.CharField()
    rubbers = serializers.IntegerField(help_text="Rubbers played, in play ones included.")
    won = serializers.IntegerField()
    games = serializers.IntegerField()
    bandeiras = serializers.IntegerField()
    shutouts = serializers.IntegerField()
    chapeus = serializers.IntegerField()
    ended_early = serializers.IntegerField(help_text="Rubbers ended before the target.")


class PlayerStandingSerializer(StandingSerializer):
    user = serializers.IntegerField(allow_null=True)


class PairStandingSerializer(StandingSerializer):
    players = serializers.ListField(child=serializers.CharField())


class TallySerializer(serializers.Serializer):
    pairs = PairStandingSerializer(many=True)
    players = PlayerStandingSerializer(many=True)


class NightNoteSerializer(NoteSerializer):  # a summaries.NightNote
    match = serializers.IntegerField(help_text="The rubber it was noted in.")


class NightSerializer(serializers.Serializer):  # a summaries.NightView
    id = serializers.IntegerField()
    name = serializers.CharField()
    place = serializers.CharField(allow_blank=True)
    created = serializers.DateTimeField()
    matches = MatchSummarySerializer(
        many=True, source="rubbers", help_text="The night's rubbers, in order."
    )
    tally = TallySerializer()
    notes = NightNoteSerializer(
        many=True, help_text="The rubbers' revoke notes, withdrawn ones too, in order."
    )
    events = Events()
