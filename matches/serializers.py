"""What the API takes and gives, one serializer per body.

Input serializers check types and shapes only; every rule of the sheet is left
to ``rules`` and the model methods, which refuse with their own message. Output
serializers describe the shapes of API.md for the schema; the match's reading
(current deal, pending extras, dealer) comes from ``rules`` and the model.
"""

from collections.abc import Mapping

from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.settings import api_settings
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from . import rules, values
from .models import (
    Event,
    Match,
    MatchQuerySet,
    clean_night_name,
    clean_place,
    clean_player_name,
    clean_seat_name,
    explain,
)
from .posted import listed

# The largest id a bigint column holds: bigger ones can name nothing.
MAX_ID = 2**63 - 1

SEAT_CHOICES = list(values.SEATS)
SIDE_CHOICES = list(values.SIDES)


# Errors ----------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="A sentence saying why the request was refused.")


class ValidationErrorSerializer(ErrorSerializer):
    errors = serializers.DictField(
        required=False,
        help_text="The messages for each field that was refused, by field name.",
    )


# Input -----------------------------------------------------------------------


class Body(serializers.Serializer):
    """A request body: a JSON object holding only the fields its serializer names.

    An unknown field is refused rather than ignored: a misspelt "sweep" would
    otherwise enter a plain deal, and a client that thinks it sent something
    should hear that it did not.
    """

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            unknown = [str(key) for key in set(data) - set(self.fields)]
            if unknown:
                raise serializers.ValidationError(
                    {
                        api_settings.NON_FIELD_ERRORS_KEY: [
                            _("There is no field %(names)s here.") % {"names": listed(unknown)}
                        ]
                    }
                )
        return super().to_internal_value(data)


class Nothing(Body):
    """The body of an action that takes none: nothing, or an empty object."""


class RuleField(serializers.Field):
    """A value read by one of the sheet's own rules (``rules``, ``models``), the one
    the pages read it with, so both refuse bad input in the same words."""

    def __init__(self, rule, **kwargs):
        self.rule = rule
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, str):
            ProhibitSurrogateCharactersValidator()(data)  # JSON can carry them; text can't
        try:
            return self.rule(data)
        except values.Refusal as refusal:
            raise serializers.ValidationError(explain(refusal), code="rule") from None

    def to_representation(self, value):
        return value


@extend_schema_field(OpenApiTypes.INT)
class Number(RuleField):
    pass


@extend_schema_field(OpenApiTypes.BOOL)
class YesNo(RuleField):
    """A yes or no, read as the pages read a tick box: left out, no (unless required)."""

    def __init__(self, **kwargs):
        if not kwargs.setdefault("required", False):
            kwargs.setdefault("default", False)
        super().__init__(values.ticked, **kwargs)


@extend_schema_field(OpenApiTypes.STR)
class Text(RuleField):
    default_error_messages = {"invalid": _("Not a valid string.")}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class Choice(serializers.ChoiceField):
    """One of ``choices`` (so the schema lists them), read by the pages' rule."""

    def __init__(self, choices, rule, **kwargs):
        self.rule = rule
        super().__init__(choices, **kwargs)

    def to_internal_value(self, data):
        if data == "":  # a form's blank radio button is JSON's null
            self.fail("invalid_choice", input=data)
        return RuleField.to_internal_value(self, data)


class WholeNumberField(serializers.IntegerField):
    """An integer; as text, only in ASCII digits ("１" is no number here, as on the pages)."""

    def to_internal_value(self, data):
        if isinstance(data, str) and not data.isascii():
            self.fail("invalid")
        return super().to_internal_value(data)


# Accounts --------------------------------------------------------------------


class UserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class GuestSerializer(Body):
    name = Text(clean_player_name, help_text="The display name the table will see.")


class GuestTokenSerializer(serializers.Serializer):
    token = serializers.CharField()
    user = UserSerializer()


class LoginSerializer(Body):
    username = serializers.CharField()
    password = serializers.CharField(trim_whitespace=False)


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()


# The calculator --------------------------------------------------------------


class CardsSerializer(Body):
    """How many of each counting card a side took (the others count nothing)."""

    aces = Number(rules.card_count("aces"), required=False, default=0)
    sevens = Number(rules.card_count("sevens"), required=False, default=0)
    kings = Number(rules.card_count("kings"), required=False, default=0)
    jacks = Number(rules.card_count("jacks"), required=False, default=0)
    queens = Number(rules.card_count("queens"), required=False, default=0)

    def to_internal_value(self, data):
        # The rule's own message, in place of Body's general "no field" one.
        if isinstance(data, Mapping):
            try:
                rules.check_card_names(data)
            except values.Refusal as refusal:
                raise serializers.ValidationError(explain(refusal)) from None
        return super().to_internal_value(data)


class CalculatorSerializer(Body):
    points = Number(
        rules.check_points,
        required=False,
        allow_null=True,
        help_text="The side's card points, 0 to 120.",
    )
    cards = CardsSerializer(required=False, allow_null=True)
    every_trick = YesNo(help_text="The side took every trick (a bandeira).")


class CalculationSerializer(serializers.Serializer):
    points = serializers.IntegerField()
    other_points = serializers.IntegerField()
    games = serializers.IntegerField()
    tie = serializers.BooleanField()


# Matches: input ---------------------------------------------------------------


class SeatNamesSerializer(Body):
    a1 = Text(clean_seat_name)
    a2 = Text(clean_seat_name)
    b1 = Text(clean_seat_name)
    b2 = Text(clean_seat_name)


class MatchCreateSerializer(Body):
    seats = SeatNamesSerializer(help_text="The name at each seat; a1 and a2 are side a.")
    host_seat = Choice(
        SEAT_CHOICES, values.check_host_seat, required=False, allow_null=True, default=None,
        help_text="The seat the caller takes, or null to keep the sheet without playing.",
    )  # fmt: skip
    direction = Choice(
        list(values.DIRECTIONS),
        values.check_direction,
        required=False,
        default=values.COUNTERCLOCKWISE,
    )
    first_dealer = Choice(SEAT_CHOICES, values.check_first_dealer, required=False, default="a1")
    redeal = Choice(
        list(values.REDEAL_RULES), values.check_redeal_rule, required=False,
        default=values.NEXT_DEALER,
        help_text="After a redeal the next player deals (next_dealer), or the same dealer "
        "deals again (same_dealer: melar, as some Brazilian tables play). Rematches keep it.",
    )  # fmt: skip
    night = WholeNumberField(
        required=False, allow_null=True, default=None, min_value=1, max_value=MAX_ID,
        help_text="One of the caller's nights, or null to start a new night.",
    )  # fmt: skip
    night_name = Text(
        clean_night_name, required=False, default="",
        help_text="A new night's name; the date when left out.",
    )  # fmt: skip
    place = Text(clean_place, required=False, default="", help_text="Where a new night is played.")


# A match's status (MatchStatusEnum in the schema: settings.ENUM_NAME_OVERRIDES).
STATUS_CHOICES = [status for status, _ in Match.STATUSES]


class MatchFilterSerializer(serializers.Serializer):
    status = serializers.ChoiceField(STATUS_CHOICES, required=False)
    night = WholeNumberField(required=False, min_value=1, max_value=MAX_ID)
    partner = WholeNumberField(
        required=False, min_value=1, max_value=MAX_ID,
        help_text="An account that sat on the caller's side.",
    )  # fmt: skip
    opponent = WholeNumberField(
        required=False, min_value=1, max_value=MAX_ID,
        help_text="An account that sat on the other side.",
    )  # fmt: skip
    result = serializers.ChoiceField(
        list(MatchQuerySet.RESULTS),
        required=False,
        help_text="How the rubber went for the caller's side.",
    )
    since = serializers.DateField(required=False, help_text="Started on or after this day.")
    until = serializers.DateField(required=False, help_text="Started on or before this day.")
    page = WholeNumberField(required=False, min_value=1)


class JoinSerializer(Body):
    token = serializers.CharField(help_text="The token of the host's join link.")
    seat = Choice(SEAT_CHOICES, values.check_seat)
    name = Text(
        lambda name: clean_player_name(name) if str(name or "").strip() else None,
        required=False,
        default=None,
        help_text="The name to show at the seat, if not its own.",
    )


class SeatClaimSerializer(Body):
    token = serializers.CharField(help_text="The token of the host's link for this seat.")


class SeatAskSerializer(Body):
    token = serializers.CharField(help_text="The token of the host's join link.")
    seat = Choice(SEAT_CHOICES, values.check_seat, help_text="The held seat you say is yours.")


class SeatAnswerSerializer(Body):
    approve = YesNo(
        required=True,
        help_text="true: the asker takes the seat, whoever holds it loses it; false: turned down.",
    )


class EntrySerializer(Body):
    deal = Number(values.read_deal, help_text="The deal this entry is for: the current deal.")
    side = Choice(SIDE_CHOICES, values.check_side)
    games = Number(values.read_games, help_text="0 to 4, plus the extra games pending.")
    sweep = YesNo(help_text="Every trick: a bandeira, worth 4 or more.")


class Seen(Body):
    """The body of an action on what a person saw: the sheet's version they acted on."""

    version = Number(
        values.read_version,
        required=False,
        allow_null=True,
        default=None,
        help_text="The version of the sheet you acted on (or send If-Match): if the sheet "
        "changed since, 409 says what changed and nothing is done.",
    )


class UndoSerializer(Seen):
    deal = Number(
        values.read_deal, required=False, allow_null=True, default=None,
        help_text="The deal of the entry you mean to undo: 409 if the latest entry is another.",
    )  # fmt: skip
    side = Choice(SIDE_CHOICES, values.check_side, required=False, allow_null=True, default=None)


class RedealSerializer(Seen):
    deal = Number(
        values.read_deal,
        help_text="The deal that was dealt again: the current deal, with neither cell filled.",
    )


class CorrectionSerializer(Seen):
    a = Number(values.read_games)
    b = Number(values.read_games)
    sweep = YesNo()


class NoteCreateSerializer(Body):
    side = Choice(SIDE_CHOICES, values.check_side, help_text="The side that revoked.")
    deal = Number(
        values.read_deal,
        required=False,
        allow_null=True,
        default=None,
        help_text="Default: the current deal.",
    )
    text = serializers.CharField(allow_blank=True)


class RematchSerializer(Seen):
    seats = serializers.DictField(
        child=serializers.ChoiceField(SEAT_CHOICES),
        required=False,
        allow_null=True,
        default=None,
        help_text=(
            "Each seat of the new match mapped to the seat of this one whose player sits "
            'there, e.g. {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"}; null keeps the pairs.'
        ),
    )


# Matches: output ---------------------------------------------------------------


class SeatSerializer(serializers.Serializer):
    seat = serializers.ChoiceField(SEAT_CHOICES)
    name = serializers.CharField()
    user = serializers.IntegerField(allow_null=True, help_text="The account holding the seat.")


class SideSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The pair's names, e.g. 'Ana & Rui'.")
    seats = SeatSerializer(many=True)
    games = serializers.IntegerField()


class SidesSerializer(serializers.Serializer):
    a = SideSerializer()
    b = SideSerializer()


class DealSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    a = serializers.IntegerField(allow_null=True)
    b = serializers.IntegerField(allow_null=True)
    complete = serializers.BooleanField()
    tie = serializers.BooleanField()
    sweep = serializers.BooleanField()
    redeal = serializers.BooleanField(
        help_text="Dealt again with nothing scored: both cells empty, and the deal passed on."
    )
    a_by = serializers.CharField(allow_null=True, help_text="Who entered side a's cell.")
    b_by = serializers.CharField(allow_null=True, help_text="Who entered side b's cell.")


class SeatLinkSerializer(serializers.Serializer):
    seat = serializers.ChoiceField(SEAT_CHOICES)
    link_token = serializers.CharField(help_text="Claims this seat once: see claim_seat.")
    url = serializers.URLField(help_text="The page of the link: one tap there takes the seat.")


# What became of a request for a seat (seat_request_reading says which).
SEAT_REQUEST_STATUSES = ["open", "approved", "turned_down", "closed"]


class SeatRequestSerializer(serializers.Serializer):
    """A request for a seat back, as the asker (and the table) see it."""

    id = serializers.IntegerField()
    seat = serializers.ChoiceField(SEAT_CHOICES)
    name = serializers.CharField(help_text="The seat's name.")
    asker = serializers.CharField(help_text="The name the asker goes by.")
    status = serializers.ChoiceField(
        SEAT_REQUEST_STATUSES,
        help_text="closed: the asker got a seat another way before anyone answered.",
    )
    created = serializers.DateTimeField()


def seat_request_reading(request, name):
    """A ``SeatRequest`` for SeatRequestSerializer; ``name`` is its seat's name."""
    if request.answered_at is None:
        status = "open"
    elif request.approved is None:
        status = "closed"
    else:
        status = "approved" if request.approved else "turned_down"
    return {
        "id": request.pk,
        "seat": request.position,
        "name": name,
        "asker": request.user.name,
        "status": status,
        "created": request.created,
    }


class SeatAskedSerializer(serializers.Serializer):
    """An open request for a seat, on the sheet of the host and the members."""

    id = serializers.IntegerField()
    seat = serializers.ChoiceField(SEAT_CHOICES)
    name = serializers.CharField(help_text="The seat's name.")
    asker = serializers.CharField(help_text="The name the asker goes by.")
    held = serializers.BooleanField(help_text="Someone holds the seat now, and would lose it.")
    created = serializers.DateTimeField()


class NoteSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    side = serializers.ChoiceField(SIDE_CHOICES)
    deal = serializers.IntegerField()
    text = serializers.CharField()
    author = serializers.CharField(allow_null=True)
    withdrawn = serializers.BooleanField()
    withdrawn_at = serializers.DateTimeField(allow_null=True)
    created = serializers.DateTimeField()


def note_reading(note):
    """A ``sheet.Note`` for NoteSerializer."""
    return {
        "id": note.id,
        "side": note.side,
        "deal": note.deal,
        "text": note.text,
        "author": note.author,
        "withdrawn": note.withdrawn,
        "withdrawn_at": note.withdrawn_at,
        "created": note.created,
    }


def _sides(match):
    names = match.side_names()
    games = {"a": match.games_a, "b": match.games_b}
    return {
        side: {
            "name": names[side],
            "seats": [
                {"seat": seat.position, "name": seat.name, "user": seat.user_id}
                for seat in match.seat_list()
                if seat.side == side
            ],
            "games": games[side],
        }
        for side in values.SIDES
    }


MARK_CHOICES = list(rules.MARKS)


class MatchSummarySerializer(serializers.Serializer):
    """A match in a list: its result as stored on the row, without its deals."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(STATUS_CHOICES)
    night = serializers.IntegerField()
    created = serializers.DateTimeField()
    sides = SidesSerializer()
    winner = serializers.ChoiceField(SIDE_CHOICES, allow_null=True)
    marks = serializers.ListField(child=serializers.ChoiceField(MARK_CHOICES))
    ended_by = serializers.CharField(allow_null=True)
    version = serializers.IntegerField()

    def reading(self, match):
        return {
            "id": match.pk,
            "status": match.status,
            "night": match.night_id,
            "created": match.created,
            "sides": _sides(match),
            "winner": match.winner or None,
            "marks": list(match.marks),
            "ended_by": match.names().get(match.ended_by_id) if match.ended_by_id else None,
            "version": match.version,
        }

    def to_representation(self, match):
        return super().to_representation(self.reading(match))


class UndoneSerializer(serializers.Serializer):
    deal = serializers.IntegerField()
    side = serializers.ChoiceField(SIDE_CHOICES, allow_null=True, help_text="Null for a redeal.")
    games = serializers.IntegerField(allow_null=True, help_text="Null for a redeal.")
    redeal = serializers.BooleanField(help_text="The entry is a redeal of the deal.")
    by = serializers.CharField(help_text="Who made the entry.")


class MatchSerializer(MatchSummarySerializer):
    """The whole sheet: seats, deals, totals, result, whose deal it is, and the notes.

    It serializes a ``sheet.Sheet``, the reading the pages render too.
    """

    target = serializers.IntegerField()
    direction = serializers.ChoiceField(list(values.DIRECTIONS))
    first_dealer = serializers.ChoiceField(SEAT_CHOICES)
    redeal = serializers.ChoiceField(
        list(values.REDEAL_RULES), help_text="Who deals after a redeal: the house rule."
    )
    deals = DealSerializer(many=True)
    current_deal = serializers.IntegerField(
        allow_null=True, help_text="The deal being entered; null once the rubber is over."
    )
    pending_extra = serializers.IntegerField(
        help_text="Extra games the current deal is worth, one per tie just before it."
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
    join_token = serializers.CharField(required=False, help_text="Host only.")
    watch_token = serializers.CharField(required=False, help_text="Host only.")

    def to_representation(self, sheet):
        match = sheet.match
        data = {
            **self.reading(match),
            "ended_by": sheet.ended_by,
            "target": match.target,
            "direction": match.direction,
            "first_dealer": match.first_dealer,
            "redeal": sheet.redeal_rule,
            "deals": [
                {
                    "number": row.number,
                    "a": row.cell("a").games,
                    "b": row.cell("b").games,
                    "complete": row.complete,
                    "tie": row.tie,
                    "sweep": row.sweep,
                    "redeal": row.redeal,
                    "a_by": row.cell("a").by,
                    "b_by": row.cell("b").by,
                }
                for row in sheet.rows
            ],
            "current_deal": sheet.current,
            "pending_extra": sheet.pending,
            "dealer": sheet.dealer,
            "leader": sheet.leader,
            "ended_at": match.ended_at,
            "notes": [note_reading(note) for note in sheet.notes],
            "undo": None,
            "next": sheet.next,
            "seat_requests": [
                {
                    "id": asked.id,
                    "seat": asked.seat,
                    "name": asked.name,
                    "asker": asked.asker,
                    "held": asked.held,
                    "created": asked.created,
                }
                for asked in sheet.seat_requests
            ],
        }
        if sheet.undo:
            undo = sheet.undo
            data["undo"] = {
                "deal": undo.deal,
                "side": undo.side or None,
                "games": undo.games,
                "redeal": undo.redeal,
                "by": undo.by,
            }
        if sheet.hosting:
            data["join_token"] = match.join_token
            data["watch_token"] = match.watch_token
        return serializers.Serializer.to_representation(self, data)


class MatchPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = MatchSummarySerializer(many=True)


class EventSerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    by = serializers.CharField(allow_null=True, help_text="Who made the change.")
    action = serializers.ChoiceField([action for action, _ in Event.ACTIONS])
    label = serializers.CharField(help_text="The action in words, in the active language.")
    deal = serializers.IntegerField(allow_null=True)
    before = serializers.JSONField(allow_null=True, help_text="The values before the change.")
    after = serializers.JSONField(allow_null=True, help_text="The values after the change.")

    def to_representation(self, event):
        names = self.context["names"]
        return super().to_representation(
            {
                "at": event.at,
                "by": names.get(event.by_id) or (event.by.name if event.by else None),
                "action": event.action,
                "label": event.get_action_display(),
                "deal": event.deal,
                "before": event.before,
                "after": event.after,
            }
        )


# Nights ----------------------------------------------------------------------------


class StandingSerializer(serializers.Serializer):
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


class NightSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    place = serializers.CharField(allow_blank=True)
    created = serializers.DateTimeField()
    matches = MatchSummarySerializer(many=True, help_text="The night's rubbers, in order.")
    tally = TallySerializer()


def night_reading(night):
    """A night for NightSerializer: its rubbers in order and the tally
    (with its matches and their seats prefetched, three queries in all)."""
    return {
        "id": night.pk,
        "name": night.name,
        "place": night.place,
        "created": night.created,
        "matches": night.rubbers(),
        "tally": night.tally(),
    }
