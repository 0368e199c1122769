"""Forms for getting in and opening a match.

The rules of the sheet are checked by the models; these forms only gather and
tidy what people type, so that a rule is never written twice.
"""

from django import forms
from django.contrib.auth.forms import SetPasswordForm, UserCreationForm
from django.utils.translation import gettext_lazy as _

from . import values
from .models import (
    User,
    clean_night_name,
    clean_place,
    clean_player_name,
    clean_seat_name,
    explain,
)

SIDE_LABELS = {"a": _("Side A"), "b": _("Side B")}
SEAT_LABELS = {
    "a1": _("Side A, player 1"),
    "a2": _("Side A, player 2"),
    "b1": _("Side B, player 1"),
    "b2": _("Side B, player 2"),
}
# A seat's name field sits in its side's fieldset, which says the side.
PLAYER_LABELS = {"1": _("Player 1"), "2": _("Player 2")}


def seat_label(position, name=None):
    """A seat in a menu: the name typed for it, else where it is ("Side A, player 1")."""
    name = " ".join(str(name or "").split())
    return name[:40] if name else SEAT_LABELS[position]


class RuleField(forms.CharField):
    """A field read by one of the sheet's own rules (``rules``, ``models``), so the
    page refuses bad input with the same words as the API, which reads it with the
    same rule. An optional field left blank is not read."""

    def __init__(self, rule, *, optional=False, **kwargs):
        self.rule, self.optional = rule, optional
        kwargs.setdefault("required", not optional)
        super().__init__(**kwargs)

    def clean(self, value):
        value = self.to_python(value)
        if self.optional and not value:
            return value
        try:
            return self.rule(value)
        except values.Refusal as refusal:
            raise forms.ValidationError(explain(refusal)) from None


def NameField(rule=clean_player_name, **kwargs):
    """A display name, 40 characters at most."""
    return RuleField(rule, max_length=40, **kwargs)


def ChoiceRuleField(rule, choices, widget=forms.RadioSelect, **kwargs):
    """One of a few radio buttons (or a menu), read as sent (not stripped) by the rule."""
    return RuleField(rule, strip=False, widget=widget(choices=choices), **kwargs)


def BandeiraAt120Field():
    """The house rule a match, a night or a tournament is created with (SPEC, Points to
    games): ticked, all 120 points are a bandeira."""
    return forms.BooleanField(
        label=_("Bandeira at 120"),
        required=False,
        help_text=_(
            "All 120 points count as a bandeira (4 games), even with a trick lost. "
            "Without it, 120 points with a trick lost are 2 games."
        ),
    )


class GuestForm(forms.Form):
    name = NameField(
        label=_("Your name"),
        help_text=_("The name the others see at the table. No sign-up, no password."),
    )


class SignUpForm(UserCreationForm):
    display_name = NameField(label=_("Your name at the table"))

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name")
        # Our own words: Django's European Portuguese spells "characters" one way here
        # and another in the password's rules, on the same page.
        help_texts = {
            "username": _("150 characters or fewer: letters, digits and @ . + - _ only."),
        }


class KeepForm(SetPasswordForm):
    """A guest picks a username and a password, so their matches stay theirs."""

    username = forms.CharField(label=_("Username"), max_length=150)
    field_order = ["username", "new_password1", "new_password2"]

    def clean_username(self):
        username = self.cleaned_data["username"].strip()
        User.username_validator(username)
        taken = User.objects.filter(username__iexact=username).exclude(pk=self.user.pk)
        if taken.exists():
            raise forms.ValidationError(_("That username is taken: pick another."))
        return username

    def save(self, commit=True):
        self.user.username = self.cleaned_data["username"]
        self.user.is_guest = False
        return super().save(commit=commit)


class NewMatchForm(forms.Form):
    a1 = NameField(clean_seat_name, label=PLAYER_LABELS["1"])
    a2 = NameField(clean_seat_name, label=PLAYER_LABELS["2"])
    b1 = NameField(clean_seat_name, label=PLAYER_LABELS["1"])
    b2 = NameField(clean_seat_name, label=PLAYER_LABELS["2"])
    host_seat = ChoiceRuleField(
        values.check_host_seat,
        [*SEAT_LABELS.items(), ("", _("None: I only keep the score"))],
        forms.Select,  # menus: the form fits a phone's screen or two
        label=_("Your seat"),
        required=False,
    )
    first_dealer = ChoiceRuleField(
        values.check_first_dealer,
        list(SEAT_LABELS.items()),
        forms.Select,
        label=_("Who deals first"),
    )
    direction = ChoiceRuleField(
        values.check_direction,
        [
            (values.COUNTERCLOCKWISE, _("Counter-clockwise: the deal passes to the right")),
            (values.CLOCKWISE, _("Clockwise, as in Brazil: the deal passes to the left")),
        ],
        label=_("Which way the deal goes"),
    )
    redeal = ChoiceRuleField(
        values.check_redeal_rule,
        [
            (values.NEXT_DEALER, _("The next player deals")),
            (
                values.SAME_DEALER,
                _("The same dealer deals again (melar, as some tables in Brazil)"),
            ),
        ],
        label=_("After a redeal"),
        optional=True,  # left out: the deal passes on, as most tables play
    )
    bandeira_at_120 = BandeiraAt120Field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The seat menus name the players typed above them (app.js keeps them so while
        # the host types), not "Side A, player 1", which a phone cuts short.
        names = {position: self[position].value() for position in values.SEATS}
        for name in ("host_seat", "first_dealer"):
            widget = self.fields[name].widget
            widget.choices = [
                (position, seat_label(position, names.get(position)))
                if position in names
                else (position, label)
                for position, label in widget.choices
            ]

    # A new match opens a new night; rematches carry on the night they belong to.
    night_name = RuleField(
        clean_night_name,
        label=_("Name"),
        max_length=80,
        required=False,
        help_text=_("Left empty: the date."),
    )
    place = RuleField(clean_place, label=_("Place"), max_length=80, required=False)

    @classmethod
    def initial_for(cls, host):
        """Seats as the host's last match left them, so the same table starts in one tap."""
        last = host.hosted.prefetch_related("seats").first()
        if last is None:
            return {
                "a1": host.name,
                "host_seat": "a1",
                "first_dealer": "a1",
                "direction": values.COUNTERCLOCKWISE,
                "redeal": values.NEXT_DEALER,
                "bandeira_at_120": False,
            }
        seats = last.seat_list()
        initial = {seat.position: seat.name for seat in seats}
        host_seat = next((seat.position for seat in seats if seat.user_id == host.pk), "")
        initial.update(
            host_seat=host_seat,
            first_dealer="a1",
            direction=last.direction,
            redeal=last.redeal_rule,
            bandeira_at_120=last.bandeira_at_120,
        )
        return initial

    def seats(self):
        return {position: self.cleaned_data[position] for position in values.SEATS}

    def sides(self):
        """The four name fields as the table sits: each side's two, under its name."""
        return [
            {"label": SIDE_LABELS[side], "fields": [self[f"{side}1"], self[f"{side}2"]]}
            for side in values.SIDES
        ]

    def seat_menus(self):
        return [self["host_seat"], self["first_dealer"]]

    def radio_fields(self):
        return [self["direction"], self["redeal"]]

    def night_fields(self):
        return [self["night_name"], self["place"]]


class JoinForm(forms.Form):
    """Take a free seat: one tap on the seat's name, or a name of one's own for it."""

    # Offered: the free seats. Checked: by Match.join, so a seat taken meanwhile
    # is refused with who took it rather than with "not a valid choice".
    seat = ChoiceRuleField(values.check_seat, [], label=_("Your seat"))
    name = NameField(
        label=_("Your name at this table"),
        optional=True,
        help_text=_("Left empty: the name the host typed for the seat."),
    )

    def __init__(self, *args, free_seats, **kwargs):
        super().__init__(*args, **kwargs)
        self.offer(free_seats)

    def offer(self, free_seats):
        """Offer these seats (the free ones, read again after a clash)."""
        self.fields["seat"].widget.choices = [
            (seat.position, f"{seat.name} · {SEAT_LABELS[seat.position]}") for seat in free_seats
        ]
        if len(free_seats) == 1:
            self.fields["seat"].initial = free_seats[0].position


# Looking back: history filters, a night's name, the next rubber's pairs ------


RESULT_CHOICES = [
    ("", _("Any result")),
    ("won", _("Won")),
    ("lost", _("Lost")),
    ("ended", _("Ended early")),
    ("in_play", _("In play")),
]


class HistoryFilterForm(forms.Form):
    """The history's filters, read from the query string; a bad value is ignored
    with its message, never a 500."""

    night = forms.TypedChoiceField(label=_("Night"), required=False, coerce=int, empty_value=None)
    partner = forms.TypedChoiceField(
        label=_("Partner"), required=False, coerce=int, empty_value=None
    )
    opponent = forms.TypedChoiceField(
        label=_("Opponent"), required=False, coerce=int, empty_value=None
    )
    result = forms.ChoiceField(label=_("Result"), required=False, choices=RESULT_CHOICES)
    since = forms.DateField(
        label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def __init__(self, data, *, nights, people):
        super().__init__(data)
        self.fields["night"].choices = [("", _("Every night"))] + [
            (night.pk, night.label) for night in nights
        ]
        people = [("", _("Anyone"))] + [(person.pk, person.name) for person in people]
        self.fields["partner"].choices = people
        self.fields["opponent"].choices = people

    def apply(self, rubbers):
        """The rubbers that pass every valid filter."""
        self.is_valid()
        return rubbers.filtered(**self.cleaned_data)


class NightForm(forms.Form):
    name = forms.CharField(
        label=_("Name"), max_length=80, required=False, help_text=_("Left empty: the date.")
    )
    place = forms.CharField(label=_("Place"), max_length=80, required=False)


PAIRINGS = {
    # Each way of pairing the four players: new seat -> the old seat whose player sits there.
    "same": {"a1": "a1", "a2": "a2", "b1": "b1", "b2": "b2"},
    "swap_b1": {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"},
    "swap_b2": {"a1": "a1", "a2": "b2", "b1": "a2", "b2": "b1"},
}


class RematchForm(forms.Form):
    """The next rubber's pairs: one of the three pairings, or seat by seat."""

    pairing = forms.ChoiceField(label=_("Pairs"), widget=forms.RadioSelect, initial="same")
    a1 = forms.ChoiceField(label=SEAT_LABELS["a1"], required=False)
    a2 = forms.ChoiceField(label=SEAT_LABELS["a2"], required=False)
    b1 = forms.ChoiceField(label=SEAT_LABELS["b1"], required=False)
    b2 = forms.ChoiceField(label=SEAT_LABELS["b2"], required=False)

    def __init__(self, data=None, *, match):
        names = {seat.position: seat.name for seat in match.seat_list()}
        initial = {position: position for position in values.SEATS}
        super().__init__(data, initial=initial)

        def pairs(moves):
            return _("%(a1)s & %(a2)s against %(b1)s & %(b2)s") % {
                new: names[old] for new, old in moves.items()
            }

        choices = [(key, pairs(moves)) for key, moves in PAIRINGS.items()]
        self.fields["pairing"].choices = [*choices, ("seats", _("Seat by seat, below"))]
        for position in values.SEATS:
            self.fields[position].choices = list(names.items())

    def seats(self):
        """The moves for Match.rematch; the model refuses a player seated twice."""
        pairing = self.cleaned_data["pairing"]
        if pairing in PAIRINGS:
            return PAIRINGS[pairing]
        return {position: self.cleaned_data[position] for position in values.SEATS}
