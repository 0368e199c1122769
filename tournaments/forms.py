"""The organiser's forms: opening a tournament and changing its pairs.

They gather what the organiser types (a pair a line, "Ana & Rui"); the rules are the
models' (``read_pairs``, ``Tournament.objects.open``), as for the API.
"""

from django import forms
from django.utils.translation import gettext_lazy as _

from matches import values
from matches.forms import BandeiraAt120Field
from matches.models import explain

from .models import KNOCKOUT_SIZES, MOST_MOCAS, MOST_TABLES, Tournament, read_pairs, split_pair


def pairs_from_lines(text) -> list[tuple[str, str]]:
    """The pairs typed one a line ("Ana & Rui"), blank lines skipped, read by the rule."""
    lines = [line.strip() for line in str(text or "").splitlines()]
    pairs = [split_pair(line) for line in lines if line]
    for number, pair in enumerate(pairs, 1):
        if len(pair) != 2 or not all(pair):
            raise forms.ValidationError(
                _("Line %(number)s: write the pair as two names, as in “Ana & Rui”."),
                params={"number": number},
            )
    try:
        return read_pairs(pairs)
    except values.Refusal as refusal:
        raise forms.ValidationError(explain(refusal)) from None


def lines_from_pairs(pairs) -> str:
    return "\n".join(pair.name for pair in pairs)


class PairsField(forms.CharField):
    widget = forms.Textarea(attrs={"rows": 8, "autocomplete": "off", "spellcheck": "false"})

    def clean(self, value):
        return pairs_from_lines(super().clean(value))


class NewTournamentForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)
    format = forms.ChoiceField(label=_("Format"), choices=Tournament.FORMATS)
    tables = forms.IntegerField(label=_("Tables"), min_value=1, max_value=MOST_TABLES, initial=2)
    mocas_to_win = forms.IntegerField(
        label=_("Mocas to win a series"),
        min_value=1,
        max_value=MOST_MOCAS,
        initial=3,
        help_text=_("3 is best of five; 1 is a single rubber."),
    )
    rounds = forms.IntegerField(
        label=_("Rounds of the round robin"),
        min_value=1,
        required=False,
        help_text=_("Leave blank to play them all."),
    )
    knockout_size = forms.TypedChoiceField(
        label=_("Pairs that go on to the knockout"),
        choices=[("", "—"), *((size, size) for size in KNOCKOUT_SIZES)],
        coerce=int,
        empty_value=None,
        required=False,
        help_text=_("Round robin, then knockout only."),
    )
    pairs = PairsField(
        label=_("Pairs, one a line"),
        help_text=_("Two names a line, as in “Ana & Rui”."),
    )
    bandeira_at_120 = BandeiraAt120Field()
    # A club's tournament (``?club=``): its pairs are the roster's players.
    club = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=1)


class PairsForm(forms.Form):
    pairs = PairsField(label=_("Pairs, one a line"))
