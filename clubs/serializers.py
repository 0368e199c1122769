"""What the club endpoints read and answer: bodies checked for shape only (every rule is
the models'), and the readings of ``board`` as JSON."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from matches.api.fields import Body, Events, WholeNumberField, Written

from .models import (
    DEFAULT_POINTS,
    DEFAULT_TAKING_PART,
    clean_club_name,
    clean_player_name,
    clean_season_name,
)

MAX_ID = 2**63 - 1


# Bodies ---------------------------------------------------------------------------------


class ClubCreateSerializer(Body):
    name = Written(clean_club_name, help_text="What the club is called, 80 characters at most.")


class PlayerNameSerializer(Body):
    name = Written(clean_player_name, help_text="Unique on the roster, whatever the case.")


class MergeSerializer(Body):
    into = WholeNumberField(
        min_value=1, max_value=MAX_ID, help_text="The roster's entry that stays: the same person."
    )


class OrganiserSerializer(Body):
    player = WholeNumberField(
        min_value=1,
        max_value=MAX_ID,
        help_text="A player whose account is linked: that account organises the club too.",
    )


class SeasonCreateSerializer(Body):
    name = Written(clean_season_name, help_text="E.g. Época 2026/27, 80 characters at most.")
    start = serializers.DateField(help_text="Its first day.")
    end = serializers.DateField(help_text="Its last day.")
    points = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=1000),
        max_length=64,
        required=False,
        default=None,
        allow_null=True,
        help_text=f"Points by final place, from 1st (default {DEFAULT_POINTS}).",
    )
    taking_part = serializers.IntegerField(
        min_value=0,
        max_value=1000,
        required=False,
        default=None,
        allow_null=True,
        help_text=f"Points for taking part in a tournament (default {DEFAULT_TAKING_PART}).",
    )


# Answers --------------------------------------------------------------------------------


class PersonSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()


class PlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    user = serializers.IntegerField(
        source="user_id", allow_null=True, help_text="The account linked to this player."
    )


class LinkedPlayerSerializer(serializers.Serializer):
    player = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    club = serializers.CharField(source="club.name")


class PlayerLinkSerializer(serializers.Serializer):
    player = serializers.IntegerField(source="pk")
    token = serializers.CharField(source="link_token")
    link = serializers.URLField(help_text="Opened by the player, signed in: links their account.")


class SeasonLineSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    start = serializers.DateField()
    end = serializers.DateField()


@extend_schema_field({"type": "string", "nullable": True})
class OrganiserOnly(serializers.Field):
    """A token only the club's organisers are shown (absent for anyone else)."""


class ClubSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    organisers = PersonSerializer(many=True, source="organiser_list")
    players = PlayerSerializer(many=True, source="player_list")
    seasons = SeasonLineSerializer(many=True, source="season_list")
    watch_token = serializers.CharField(
        required=False, help_text="Organisers only: the board's watch link's token."
    )
    events = Events()

    def to_representation(self, club):
        data = super().to_representation(club)
        if not self.context.get("organiser"):
            data.pop("watch_token", None)
        data["events"] = self.context["events"]
        return data


class RatingLineSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    rating = serializers.FloatField(help_text="The conservative rating the board ranks by.")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rubbers = serializers.IntegerField(help_text="Rated rubbers played.")
    won = serializers.IntegerField()
    provisional = serializers.BooleanField(help_text="Fewer than 10 rated rubbers.")


class RatingsSerializer(serializers.Serializer):
    players = RatingLineSerializer(many=True)


class RatingPointSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    at = serializers.DateTimeField(allow_null=True, help_text="When the rubber was won.")
    rating = serializers.FloatField()


class TogetherSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField()
    rubbers = serializers.IntegerField()
    won = serializers.IntegerField()
    lost = serializers.IntegerField()


class PlacingSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    name = serializers.CharField()
    pair = serializers.CharField()
    finished = serializers.BooleanField()
    place = serializers.IntegerField(allow_null=True)


class PlayerRecordSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="player.pk")
    name = serializers.CharField(source="player.name")
    user = serializers.IntegerField(source="player.user_id", allow_null=True)
    rating = serializers.FloatField(source="line.rating")
    mu = serializers.FloatField(source="line.mu")
    sigma = serializers.FloatField(source="line.sigma")
    rubbers = serializers.IntegerField(source="line.rubbers")
    won = serializers.IntegerField(source="line.won")
    provisional = serializers.BooleanField(source="line.provisional")
    bandeiras = serializers.IntegerField()
    shutouts = serializers.IntegerField()
    ratings = RatingPointSerializer(many=True, help_text="After each rated rubber, in order.")
    partners = TogetherSerializer(
        many=True, help_text="With whom they win most first (from 5 rubbers together)."
    )
    opponents = TogetherSerializer(
        many=True, help_text="Against whom they lose most first (from 5 rubbers together)."
    )
    tournaments = PlacingSerializer(many=True)


class SeasonStandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    points = serializers.IntegerField()
    tournaments = serializers.IntegerField(help_text="The season's tournaments played.")
    won = serializers.IntegerField(help_text="Tournaments won.")
    best = serializers.IntegerField(allow_null=True, help_text="The best final place.")
    rubbers_won = serializers.IntegerField()


class SeasonSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="season.pk")
    name = serializers.CharField(source="season.name")
    start = serializers.DateField(source="season.start")
    end = serializers.DateField(source="season.end")
    points = serializers.ListField(child=serializers.IntegerField(), source="season.points")
    taking_part = serializers.IntegerField(source="season.taking_part")
    tournaments = serializers.ListField(child=serializers.IntegerField(), source="tournament_ids")
    standings = SeasonStandingSerializer(many=True, source="lines")
