"""What the tournament endpoints read and answer: the bodies they take, checked for
shape only (every rule is the models'), and the board (``board.read``) as JSON."""

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from matches import links
from matches.api.fields import (
    WRITTEN,
    Body,
    Events,
    RuleField,
    WholeNumberField,
    Written,
    YesNo,
)
from matches.api.readings import ErrorSerializer

from .models import KNOCKOUT_SIZES, MOST_MOCAS, MOST_PAIRS, MOST_TABLES, Tournament, read_pairs
from .models.tournament import clean_tournament_name

# Bodies ---------------------------------------------------------------------------------


@extend_schema_field(
    {
        "type": "array",
        "items": {"type": "array", "items": WRITTEN, "minItems": 2, "maxItems": 2},
        "minItems": 2,
        "maxItems": MOST_PAIRS,
    }
)
class PairsField(RuleField):
    """The pairs, two players' names each: read by the rule the pages use."""

    def __init__(self, **kwargs):
        super().__init__(read_pairs, **kwargs)


class TournamentCreateSerializer(Body):
    name = Written(
        clean_tournament_name, help_text="What the tournament is called, 80 characters at most."
    )
    pairs = PairsField(
        help_text='Two names a pair, e.g. [["Ana", "Rui"], ["Zé", "Maria"]]; each name as for '
        "a seat (40 characters at most), and none twice."
    )
    format = serializers.ChoiceField(
        [choice for choice, _label in Tournament.FORMATS], default=Tournament.ROUND_ROBIN
    )
    rounds = WholeNumberField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        help_text="The round robin's first R rounds only; null plays them all.",
    )
    knockout_size = serializers.ChoiceField(
        list(KNOCKOUT_SIZES),
        required=False,
        allow_null=True,
        default=None,
        help_text="Round robin, then knockout: the top 2, 4 or 8 go on.",
    )
    tables = WholeNumberField(min_value=1, max_value=MOST_TABLES, default=1)
    mocas_to_win = WholeNumberField(min_value=1, max_value=MOST_MOCAS, default=3)
    bandeira_at_120 = YesNo(
        help_text="The house rule every rubber plays by: all 120 points a bandeira (4 "
        "games), every trick taken or not."
    )
    club = WholeNumberField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        help_text="A club's tournament (one its caller organises): the pairs' names are its "
        "roster's players, matched as seat names are; a name not on the roster joins it.",
    )


class PairsSerializer(Body):
    pairs = PairsField()


class WalkoverSerializer(Body):
    winner = WholeNumberField(min_value=1, help_text="The pair that turned up.")


class NegraSerializer(Body):
    pairs = serializers.ListField(
        child=WholeNumberField(min_value=1),
        min_length=2,
        max_length=2,
        help_text="The two pairs that share a rank.",
    )


# Answers --------------------------------------------------------------------------------


@extend_schema_field(
    {
        "type": "array",
        "items": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "minItems": 2,
        "maxItems": 2,
    }
)
class PairPlayers(serializers.Field):
    """A pair's two players: their names, or in a club's tournament the roster's ids."""

    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, pair):
        return pair.roster or pair.players


class PairSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    players = PairPlayers(
        help_text="The two players' names; in a club's tournament, the ids of the two "
        "players of the club's roster."
    )


class SideCount(serializers.Serializer):
    a = serializers.IntegerField()
    b = serializers.IntegerField()


class SeriesSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    a = serializers.IntegerField(help_text="The pair listed first: side a of every rubber.")
    b = serializers.IntegerField()
    table = serializers.IntegerField(allow_null=True)
    mocas = SideCount()
    games = SideCount(allow_null=True, help_text="The games of the rubber in play, if any.")
    winner = serializers.IntegerField(allow_null=True)
    walkover = serializers.BooleanField()
    matches = serializers.ListField(child=serializers.IntegerField())
    current_match = serializers.IntegerField(allow_null=True)


class RoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    name = serializers.CharField(
        help_text='What the round is, in your language: "Round 3" in a round robin; in a '
        'knockout "Final", "Semi-finals", "Quarter-finals", "Round of 16"...'
    )
    phase = serializers.ChoiceField(["round_robin", "knockout"])
    status = serializers.ChoiceField(["in_play", "finished"])
    byes = serializers.ListField(child=serializers.IntegerField())
    series = SeriesSerializer(many=True)


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    pair = serializers.IntegerField()
    points = serializers.IntegerField()
    series_won = serializers.IntegerField()
    series_lost = serializers.IntegerField()
    mocas_won = serializers.IntegerField()
    mocas_lost = serializers.IntegerField()
    games_won = serializers.IntegerField()
    games_lost = serializers.IntegerField()
    ahead_on = serializers.CharField(
        allow_null=True,
        help_text="Which tie-break puts this pair above the next one on the same points: "
        "head_to_head_points, head_to_head_mocas, moca_difference, mocas_won, "
        "game_difference or negra; null otherwise.",
    )
    reason = serializers.CharField(
        help_text="Why it stands there, as a sentence in your language: the pairs it shares "
        "its rank with, or the pair it is ahead of and on what; empty otherwise."
    )


class PlaceSerializer(serializers.Serializer):
    place = serializers.IntegerField(help_text="1 is the champion; shared places: 1, 2, 3, 3, 5.")
    pairs = serializers.ListField(
        child=serializers.IntegerField(), help_text="The pairs in this place, together."
    )


class TournamentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.ChoiceField(["registering", "in_play", "finished"])
    format = serializers.ChoiceField([choice for choice, _label in Tournament.FORMATS])
    rounds_asked = serializers.IntegerField(allow_null=True)
    knockout_size = serializers.IntegerField(allow_null=True)
    mocas_to_win = serializers.IntegerField()
    tables = serializers.IntegerField(source="table_count")
    bandeira_at_120 = serializers.BooleanField(
        help_text="The house rule every rubber plays by: all 120 points a bandeira."
    )
    version = serializers.IntegerField()
    pairs = PairSerializer(many=True)
    rounds = RoundSerializer(many=True)
    standings = StandingSerializer(many=True)
    champion = serializers.IntegerField(allow_null=True)
    final = PlaceSerializer(
        many=True,
        allow_null=True,
        help_text="The final places once finished, best first (the knockout's champion "
        "first, the rest by the round robin); [] for a knockout ended before its final; "
        "null before the tournament is finished.",
    )
    events = Events()
    watch_token = serializers.SerializerMethodField()
    table_links = serializers.SerializerMethodField()

    @extend_schema_field({"type": "string", "nullable": True})
    def get_watch_token(self, board) -> str | None:
        return board.watch_token if self.context.get("organiser") else None

    @extend_schema_field(
        {"type": "object", "nullable": True, "additionalProperties": {"type": "string"}}
    )
    def get_table_links(self, board):
        if not self.context.get("organiser"):
            return None
        request = self.context["request"]
        return {
            str(table.number): links.absolute(request, reverse("table", args=[table.token]))
            for table in board.tables
        }


class InTheWaySerializer(serializers.Serializer):
    table = serializers.IntegerField(allow_null=True, help_text="The table still playing.")
    match = serializers.IntegerField(allow_null=True, help_text="The rubber in play there.")
    series = serializers.IntegerField(
        allow_null=True, help_text="The series it is a rubber of, or that waits for a table."
    )


class RoundRefusedSerializer(ErrorSerializer):
    in_the_way = InTheWaySerializer(
        many=True,
        required=False,
        help_text="What keeps the next round from starting, as the sentence names it.",
    )


class NegraStartedSerializer(serializers.Serializer):
    match = serializers.IntegerField()


class TableSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    table = serializers.IntegerField()
    match = serializers.IntegerField(allow_null=True, help_text="The rubber in play there.")
