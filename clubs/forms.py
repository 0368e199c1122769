"""The club's forms: what organisers and players type; the rules are the models'."""

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from matches.forms import PLAYER_LABELS

SEATS = ("a1", "a2", "b1", "b2")
# The seats as the form's two fieldsets name them: a1 and a2 are Nós, b1 and b2 Eles.
SEAT_NAMES = {
    position: format_lazy("{} · {}", side, PLAYER_LABELS[position[1]])
    for side, positions in (("Nós", SEATS[:2]), ("Eles", SEATS[2:]))
    for position in positions
}


class OpenClubForm(forms.Form):
    name = forms.CharField(label=_("The club's name"), max_length=80)


class RubberForm(forms.Form):
    """Four players of the roster, one a seat (Nós: a1 and a2; Eles: b1 and b2), the
    host's own seat if they play, and who deals first; the rest as the house plays."""

    host_seat = forms.ChoiceField(label=_("I sit at"), required=False)
    first_dealer = forms.ChoiceField(
        label=_("Who deals first"), choices=list(SEAT_NAMES.items()), initial="a1"
    )

    def __init__(self, *args, roster, **kwargs):
        super().__init__(*args, **kwargs)
        choices = [("", "—"), *((str(player.pk), player.name) for player in roster)]
        for position in SEATS:
            # Each side's fieldset says Nós or Eles: a field says which of its two players.
            self.fields[position] = forms.ChoiceField(
                label=PLAYER_LABELS[position[1]], choices=choices
            )
        self.fields["host_seat"].choices = [
            *SEAT_NAMES.items(),
            ("", _("None: I only keep the score")),
        ]
        self.order_fields([*SEATS, "host_seat", "first_dealer"])

    def sides(self):
        return [("Nós", [self["a1"], self["a2"]]), ("Eles", [self["b1"], self["b2"]])]

    def players(self) -> dict[str, str]:
        return {position: self.cleaned_data[position] for position in SEATS}


def chosen(data) -> dict[str, int] | None:
    """The four different players picked so far (``data``: a form's or a query's), by
    seat, for the forecast; None until all four are."""
    picked = {position: str(data.get(position) or "") for position in SEATS}
    if not all(value.isdigit() and len(value) < 19 for value in picked.values()):
        return None
    ids = {position: int(value) for position, value in picked.items()}
    return ids if len(set(ids.values())) == 4 else None
