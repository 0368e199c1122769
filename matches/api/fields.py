"""The fields a request's values are read with, and the choices the schema lists.

Each typed field reads its value with the rule the pages read it with (``values``,
``rules``, the models' ``clean_*``), so the same bad input gets the same message on a
page and in the API. A ``Body`` is a JSON object holding only the fields it names.
"""

from collections.abc import Mapping

from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.settings import api_settings
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from .. import rules, values
from ..models import Match, explain
from ..posted import listed

# The largest id a bigint column holds: an id in a body beyond it names nothing.
MAX_ID = 2**63 - 1

SEAT_CHOICES = list(values.SEATS)
SIDE_CHOICES = list(values.SIDES)
# A match's status (MatchStatusEnum in the schema: settings.ENUM_NAME_OVERRIDES).
STATUS_CHOICES = [status for status, _label in Match.STATUSES]
MARK_CHOICES = list(rules.MARKS)


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
    """A whole number. ``low`` and ``high`` are its rule's own bounds, for the schema to
    say: the rule has refused anything outside them before these validators look."""

    def __init__(self, rule, *, low=None, high=None, **kwargs):
        bounds = [MinValueValidator(low)] if low is not None else []
        bounds += [MaxValueValidator(high)] if high is not None else []
        if bounds:
            kwargs["validators"] = [*kwargs.get("validators", ()), *bounds]
        super().__init__(rule, **kwargs)


@extend_schema_field(OpenApiTypes.BOOL)
class YesNo(RuleField):
    """A yes or no: JSON's true or false, as the schema says (no 0, 1 or "on", which a
    page's tick box sends); left out, no (unless required)."""

    default_error_messages = {"invalid": _("Send true or false.")}

    def __init__(self, **kwargs):
        if not kwargs.setdefault("required", False):
            kwargs.setdefault("default", False)
        super().__init__(values.ticked, **kwargs)

    def to_internal_value(self, data):
        read = super().to_internal_value(data)  # no yes or no: refused in the page's words
        if not isinstance(data, bool):
            self.fail("invalid")  # a tick box's word, or a number: JSON says true or false
        return read


# What the models' clean_text refuses, as far as a pattern can say it (JSON Schema's
# have no Unicode categories): a NUL anywhere and, where text is required, nothing but
# spaces, controls and invisible formatting characters. Its length is counted once
# spaces are collapsed, which no maxLength can say.
NO_NUL = r"^[^\x00]*$"
SOMETHING_WRITTEN = (
    r"^[^\x00]*[^\s\x00-\x1f\x7f-\x9f\xad\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff][^\x00]*$"
)
WRITTEN = {"type": "string", "minLength": 1, "pattern": SOMETHING_WRITTEN}


@extend_schema_field({"type": "string", "pattern": NO_NUL})
class Text(RuleField):
    default_error_messages = {"invalid": _("Not a valid string.")}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_field(WRITTEN)
class Written(Text):
    """Text its rule requires (a name, a note): empty, or only spaces, is refused."""


class String(serializers.CharField):
    """Text as JSON sends it: a string, never a number turned into one."""

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


@extend_schema_field(OpenApiTypes.URI)
class Events(serializers.Field):
    """Where the thing read is heard changing, live: its event stream (API.md, "Live
    changes"), the address the view puts in the serializer's context as ``events``."""

    def __init__(self, **kwargs):
        kwargs.setdefault(
            "help_text",
            "Its event stream (text/event-stream): an event with the new version after "
            "every change.",
        )
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, value):
        return self.context["events"]
