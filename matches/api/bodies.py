"""What requests send: one serializer per body (and the list's query).

They check types and shapes only; every rule of the sheet is left to ``values``,
``rules`` and the model methods, which refuse with their own message.
"""

from collections.abc import Mapping

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from .. import rules, values
from ..models import (
    MatchQuerySet,
    clean_night_name,
    clean_note,
    clean_place,
    clean_player_name,
    clean_seat_name,
    explain,
)
from .fields import (
    MAX_ID,
    SEAT_CHOICES,
    SIDE_CHOICES,
    STATUS_CHOICES,
    Body,
    Choice,
    Number,
    String,
    Text,
    WholeNumberField,
    Written,
    YesNo,
)


class Nothing(Body):
    """The body of an action that takes none: nothing, or an empty object."""


class Seen(Body):
    """The body of an action on what a person saw: the sheet's version they acted on."""

    version = Number(
        values.read_version,
        low=1,
        required=False,
        allow_null=True,
        default=None,
        help_text="The version of the sheet you acted on (or send If-Match): if the sheet "
        "changed since, 409 says what changed and nothing is done.",
    )


# Accounts --------------------------------------------------------------------------


class GuestSerializer(Body):
    name = Written(
        clean_player_name, help_text="The display name the table will see, 40 characters at most."
    )


class LoginSerializer(Body):
    username = String()
    password = String(trim_whitespace=False)


# The calculator --------------------------------------------------------------------


COUNT = {"low": 0, "high": rules.CARDS_PER_RANK, "required": False, "default": 0}


class CardsSerializer(Body):
    """How many of each counting card a side took (the others count nothing)."""

    aces = Number(rules.card_count("aces"), **COUNT)
    sevens = Number(rules.card_count("sevens"), **COUNT)
    kings = Number(rules.card_count("kings"), **COUNT)
    jacks = Number(rules.card_count("jacks"), **COUNT)
    queens = Number(rules.card_count("queens"), **COUNT)

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
        low=0,
        high=rules.DECK_POINTS,
        required=False,
        allow_null=True,
        help_text="The side's card points, 0 to 120 (no set of cards makes 1 or 119).",
    )
    cards = CardsSerializer(required=False, allow_null=True)
    every_trick = YesNo(help_text="The side took every trick (a bandeira).")
    bandeira_at_120 = YesNo(
        help_text="The table's house rule: all 120 points are a bandeira (4 games), every "
        "trick taken or not. Left out, 120 points with a trick lost are 2 games."
    )


# The calculator's body in its two shapes, as the schema says it (``CalculatorSerializer``
# reads both): the points, or the cards, the other left out or null.


@extend_schema_field({"nullable": True, "oneOf": [{"enum": [None]}]})
class Null(serializers.Field):
    """Left out, or null (the schema's only; ``CalculatorSerializer`` reads the body)."""


class PointsSerializer(CalculatorSerializer):
    points = Number(
        rules.check_points,
        low=0,
        high=rules.DECK_POINTS,
        help_text="The side's card points, 0 to 120 (no set of cards makes 1 or 119).",
    )
    cards = Null(required=False)


class CountedCardsSerializer(CalculatorSerializer):
    points = Null(required=False)
    cards = CardsSerializer()


CALCULATOR = PolymorphicProxySerializer(
    component_name="Calculator",
    serializers=[PointsSerializer, CountedCardsSerializer],
    resource_type_field_name=None,
)


# Matches ---------------------------------------------------------------------------


SEAT_NAME = "The player's name, 40 characters at most."


class SeatNamesSerializer(Body):
    a1 = Written(clean_seat_name, help_text=SEAT_NAME)
    a2 = Written(clean_seat_name, help_text=SEAT_NAME)
    b1 = Written(clean_seat_name, help_text=SEAT_NAME)
    b2 = Written(clean_seat_name, help_text=SEAT_NAME)


class SeatPlayerIds(Body):
    """A club's players by seat: four ids of its roster."""

    a1 = WholeNumberField(min_value=1, max_value=MAX_ID)
    a2 = WholeNumberField(min_value=1, max_value=MAX_ID)
    b1 = WholeNumberField(min_value=1, max_value=MAX_ID)
    b2 = WholeNumberField(min_value=1, max_value=MAX_ID)


class MatchCreateSerializer(Body):
    seats = SeatNamesSerializer(
        required=False,
        default=None,
        help_text="The name at each seat; a1 and a2 are side a. Left out for a club's "
        "rubber, whose seats take its players' names.",
    )
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
    bandeira_at_120 = YesNo(
        default=serializers.empty,  # left out: the night's rule (a new night's: false)
        help_text="The house rule on 120 points: true, a bandeira (4 games) every trick "
        "taken or not. Left out: false for a new night, else the night's. Rematches, and "
        "the night's rubbers, keep it.",
    )
    night = WholeNumberField(
        required=False, allow_null=True, default=None, min_value=1, max_value=MAX_ID,
        help_text="One of the caller's nights, or null to start a new night.",
    )  # fmt: skip
    night_name = Text(
        clean_night_name, required=False, default="",
        help_text="A new night's name, 80 characters at most; the date when left out.",
    )  # fmt: skip
    place = Text(
        clean_place, required=False, default="",
        help_text="Where a new night is played, 80 characters at most.",
    )  # fmt: skip
    club = WholeNumberField(
        required=False, allow_null=True, default=None, min_value=1, max_value=MAX_ID,
        help_text="A club's rubber: the club (its organisers and its players may start "
        "one). Then ``players`` names its four players and the seats take their names.",
    )  # fmt: skip
    players = SeatPlayerIds(required=False, allow_null=True, default=None)

    def validate(self, data):
        if (data["club"] is None) != (data["players"] is None):
            raise serializers.ValidationError(
                {"players": _("A club's rubber names its club and its four players.")}
            )
        if data["club"] is not None and data["seats"] is not None:
            raise serializers.ValidationError(
                {"seats": _("A club's rubber takes its players' names: leave the seats out.")}
            )
        return data


# A match's body in its two shapes, as the schema says it (``MatchCreateSerializer`` reads
# both): four seats named, or a club's four players, the other left out or null.


class NamedSeatsSerializer(MatchCreateSerializer):
    seats = SeatNamesSerializer(help_text="The name at each seat; a1 and a2 are side a.")
    club = Null(required=False)
    players = Null(required=False)


class ClubPlayersSerializer(MatchCreateSerializer):
    seats = Null(required=False)
    club = WholeNumberField(
        min_value=1, max_value=MAX_ID,
        help_text="The club (its organisers and its players may start its rubbers).",
    )  # fmt: skip
    players = SeatPlayerIds(
        help_text="Four different players of the club; the seats take their names."
    )


MATCH_START = PolymorphicProxySerializer(
    component_name="MatchStart",
    serializers=[NamedSeatsSerializer, ClubPlayersSerializer],
    resource_type_field_name=None,
)


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

    def to_internal_value(self, data):
        # A filter sent empty (?until=) is refused rather than read as no filter: a
        # client that sent one should hear that it filtered nothing.
        blank = [name for name in self.fields if name in data and data[name] == ""]
        if blank:
            said = _("Leave it out to filter nothing, rather than send it empty.")
            raise serializers.ValidationError({name: [said] for name in blank})
        return super().to_internal_value(data)


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


# Seats -----------------------------------------------------------------------------


class JoinSerializer(Body):
    token = String(help_text="The token of the host's join link.")
    seat = Choice(SEAT_CHOICES, values.check_seat)
    name = Text(
        lambda name: clean_player_name(name) if str(name or "").strip() else None,
        required=False,
        default=None,
        help_text="The name to show at the seat, if not its own (40 characters at most).",
    )


class SeatClaimSerializer(Body):
    token = String(help_text="The token of the host's link for this seat.")


class SeatAskSerializer(Body):
    token = String(help_text="The token of the host's join link.")
    seat = Choice(SEAT_CHOICES, values.check_seat, help_text="The held seat you say is yours.")


class SeatAnswerSerializer(Seen):
    approve = YesNo(
        required=True,
        help_text="true: the asker takes the seat, whoever holds it loses it; false: turned down.",
    )


# Playing ---------------------------------------------------------------------------


class EntrySerializer(Body):
    deal = Number(
        values.read_deal, low=1, help_text="The deal this entry is for: the current deal."
    )
    side = Choice(SIDE_CHOICES, values.check_side)
    games = Number(values.read_games, low=0, help_text="0 to 4, plus the extra games pending.")
    sweep = YesNo(help_text="Every trick: a bandeira, worth 4 or more.")


class UndoSerializer(Seen):
    deal = Number(
        values.read_deal, low=1, required=False, allow_null=True, default=None,
        help_text="The deal of the entry you mean to undo: 409 if the latest entry is another.",
    )  # fmt: skip
    side = Choice(SIDE_CHOICES, values.check_side, required=False, allow_null=True, default=None)


class RedealSerializer(Seen):
    deal = Number(
        values.read_deal,
        low=1,
        help_text="The deal that was dealt again: the current deal, with neither cell filled.",
    )


class CorrectionSerializer(Seen):
    a = Number(values.read_games, low=0)
    b = Number(values.read_games, low=0)
    sweep = YesNo()


class NoteCreateSerializer(Body):
    side = Choice(SIDE_CHOICES, values.check_side, help_text="The side that revoked.")
    deal = Number(
        values.read_deal,
        low=1,
        required=False,
        allow_null=True,
        default=None,
        help_text="Default: the current deal.",
    )
    text = Written(clean_note, help_text="What happened, 500 characters at most.")
