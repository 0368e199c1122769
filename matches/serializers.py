"""What the API takes and gives, one serializer per body.

Input serializers check types and shapes only; every rule of the sheet is left
to ``rules`` and the model methods, which refuse with their own message. Output
serializers describe the shapes of API.md for the schema; the match's reading
(current deal, pending extras, dealer) comes from ``rules`` and the model.
"""

from collections.abc import Mapping

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers
from rest_framework.settings import api_settings

from . import rules
from .models import Event, Match, MatchQuerySet, explain

# The largest id a bigint column holds: bigger ones can name nothing.
MAX_ID = 2**63 - 1

SEAT_CHOICES = list(rules.SEATS)
SIDE_CHOICES = list(rules.SIDES)


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
            unknown = sorted(str(key)[:40] or '""' for key in set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {
                        api_settings.NON_FIELD_ERRORS_KEY: [
                            _("There is no field %(names)s here.") % {"names": ", ".join(unknown)}
                        ]
                    }
                )
        return super().to_internal_value(data)


class Nothing(Body):
    """The body of an action that takes none: nothing, or an empty object."""


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
    name = serializers.CharField(allow_blank=True, help_text="The display name the table will see.")


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

    aces = WholeNumberField(required=False, default=0)
    sevens = WholeNumberField(required=False, default=0)
    kings = WholeNumberField(required=False, default=0)
    jacks = WholeNumberField(required=False, default=0)
    queens = WholeNumberField(required=False, default=0)

    def to_internal_value(self, data):
        # The rule's own message, in place of Body's general "no field" one.
        if isinstance(data, Mapping):
            try:
                rules.check_card_names(data)
            except rules.Refusal as refusal:
                raise serializers.ValidationError(explain(refusal)) from None
        return super().to_internal_value(data)


class CalculatorSerializer(Body):
    points = WholeNumberField(
        required=False, allow_null=True, help_text="The side's card points, 0 to 120."
    )
    cards = CardsSerializer(required=False, allow_null=True)
    every_trick = serializers.BooleanField(
        required=False, default=False, help_text="The side took every trick (a bandeira)."
    )


class CalculationSerializer(serializers.Serializer):
    points = serializers.IntegerField()
    other_points = serializers.IntegerField()
    games = serializers.IntegerField()
    tie = serializers.BooleanField()


# Matches: input ---------------------------------------------------------------


class SeatNamesSerializer(Body):
    # Blank names reach the model, which says which name is missing and why.
    a1 = serializers.CharField(allow_blank=True)
    a2 = serializers.CharField(allow_blank=True)
    b1 = serializers.CharField(allow_blank=True)
    b2 = serializers.CharField(allow_blank=True)


class MatchCreateSerializer(Body):
    seats = SeatNamesSerializer(help_text="The name at each seat; a1 and a2 are side a.")
    host_seat = serializers.ChoiceField(
        SEAT_CHOICES, required=False, allow_null=True, default=None,
        help_text="The seat the caller takes, or null to keep the sheet without playing.",
    )  # fmt: skip
    direction = serializers.ChoiceField(
        list(rules.DIRECTIONS), required=False, default=rules.COUNTERCLOCKWISE
    )
    first_dealer = serializers.ChoiceField(SEAT_CHOICES, required=False, default="a1")
    night = WholeNumberField(
        required=False, allow_null=True, default=None, min_value=1, max_value=MAX_ID,
        help_text="One of the caller's nights, or null to start a new night.",
    )  # fmt: skip
    night_name = serializers.CharField(
        required=False, allow_blank=True, default="",
        help_text="A new night's name; the date when left out.",
    )  # fmt: skip
    place = serializers.CharField(
        required=False, allow_blank=True, default="", help_text="Where a new night is played."
    )


class MatchFilterSerializer(serializers.Serializer):
    status = serializers.ChoiceField([status for status, _ in Match.STATUSES], required=False)
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
    seat = serializers.ChoiceField(SEAT_CHOICES)
    name = serializers.CharField(
        required=False, allow_blank=True, help_text="The name to show at the seat, if not its own."
    )


class EntrySerializer(Body):
    deal = WholeNumberField(help_text="The deal this entry is for: the current deal.")
    side = serializers.ChoiceField(SIDE_CHOICES)
    games = WholeNumberField(help_text="0 to 4, plus the extra games pending.")
    sweep = serializers.BooleanField(
        required=False, default=False, help_text="Every trick: a bandeira, worth 4 or more."
    )


class CorrectionSerializer(Body):
    a = WholeNumberField()
    b = WholeNumberField()
    sweep = serializers.BooleanField(required=False, default=False)


class NoteCreateSerializer(Body):
    side = serializers.ChoiceField(SIDE_CHOICES, help_text="The side that revoked.")
    deal = WholeNumberField(
        required=False, allow_null=True, default=None, help_text="Default: the current deal."
    )
    text = serializers.CharField(allow_blank=True)


class RematchSerializer(Body):
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


class Names:
    """The name the sheet shows for each person in one match: their seat's name,
    or the host's own name when the host holds no seat. Needs only the seats and
    the host, which every match read loads anyway."""

    def __init__(self, match):
        self.host_id = match.host_id
        self.host = match.host
        self.by_user = {seat.user_id: seat.name for seat in match.seat_list() if seat.user_id}

    def __call__(self, user_id):
        if user_id is None:
            return None
        if user_id in self.by_user:
            return self.by_user[user_id]
        if user_id == self.host_id:
            return self.host.name
        return None


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
    a_by = serializers.CharField(allow_null=True, help_text="Who entered side a's cell.")
    b_by = serializers.CharField(allow_null=True, help_text="Who entered side b's cell.")


class NoteSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    side = serializers.ChoiceField(SIDE_CHOICES)
    deal = serializers.IntegerField()
    text = serializers.CharField()
    author = serializers.CharField(allow_null=True)
    withdrawn = serializers.BooleanField()
    withdrawn_at = serializers.DateTimeField(allow_null=True)
    created = serializers.DateTimeField()


def note_reading(note, names):
    return {
        "id": note.pk,
        "side": note.side,
        "deal": note.deal,
        "text": note.text,
        "author": names(note.author_id),
        "withdrawn": note.withdrawn,
        "withdrawn_at": note.withdrawn_at,
        "created": note.created,
    }


def _sides(match, seats):
    names = match.side_names()
    games = {"a": match.games_a, "b": match.games_b}
    return {
        side: {
            "name": names[side],
            "seats": [
                {"seat": seat.position, "name": seat.name, "user": seat.user_id}
                for seat in seats
                if seat.side == side
            ],
            "games": games[side],
        }
        for side in rules.SIDES
    }


MARK_CHOICES = list(rules.MARKS)
STATUS_CHOICES = [status for status, _ in Match.STATUSES]


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

    def reading(self, match, names):
        return {
            "id": match.pk,
            "status": match.status,
            "night": match.night_id,
            "created": match.created,
            "sides": _sides(match, match.seat_list()),
            "winner": match.winner or None,
            "marks": list(match.marks),
            "ended_by": names(match.ended_by_id),
            "version": match.version,
        }

    def to_representation(self, match):
        return super().to_representation(self.reading(match, Names(match)))


class MatchSerializer(MatchSummarySerializer):
    """The whole sheet: seats, deals, totals, result, whose deal it is, and the notes."""

    # The view passes show_tokens in the context for the host only.

    target = serializers.IntegerField()
    direction = serializers.ChoiceField(list(rules.DIRECTIONS))
    first_dealer = serializers.ChoiceField(SEAT_CHOICES)
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
    join_token = serializers.CharField(required=False, help_text="Host only.")
    watch_token = serializers.CharField(required=False, help_text="Host only.")

    def to_representation(self, match):
        names = Names(match)
        deals = match.deal_list()
        sheet = [deal.as_rule() for deal in deals]
        current = rules.current_deal(sheet) if match.in_play else None
        data = {
            **self.reading(match, names),
            "target": match.target,
            "direction": match.direction,
            "first_dealer": match.first_dealer,
            "deals": [
                {
                    "number": deal.number,
                    "a": deal.a,
                    "b": deal.b,
                    "complete": deal.complete,
                    "tie": deal.tie,
                    "sweep": deal.sweep,
                    "a_by": names(deal.a_by_id),
                    "b_by": names(deal.b_by_id),
                }
                for deal in deals
            ],
            "current_deal": current,
            "pending_extra": rules.pending_extra(sheet) if current else 0,
            "dealer": match.dealer(current) if current else None,
            "leader": match.leader(current) if current else None,
            "ended_at": match.ended_at,
            "notes": [note_reading(note, names) for note in match.notes.all()],
        }
        if self.context.get("show_tokens"):
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
                "by": names(event.by_id) or (event.by.name if event.by else None),
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
