"""Forms for getting in and opening a match.

The rules of the sheet are checked by the models; these forms only gather and
tidy what people type, so that a rule is never written twice.
"""

from django import forms
from django.contrib.auth.forms import SetPasswordForm, UserCreationForm
from django.utils.translation import gettext_lazy as _

from . import rules
from .models import User, clean_name, explain

SEAT_LABELS = {
    "a1": _("Side A, first seat"),
    "a2": _("Side A, second seat (opposite)"),
    "b1": _("Side B, first seat"),
    "b2": _("Side B, second seat (opposite)"),
}


class NameField(forms.CharField):
    """A display name, tidied and checked the way the models check names."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 40)
        super().__init__(**kwargs)

    def clean(self, value):
        value = super().clean(value)
        if not value and not self.required:
            return value
        try:
            return clean_name(value, what=self.label)
        except rules.Refusal as refusal:
            raise forms.ValidationError(explain(refusal)) from None


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
    a1 = NameField(label=SEAT_LABELS["a1"])
    a2 = NameField(label=SEAT_LABELS["a2"])
    b1 = NameField(label=SEAT_LABELS["b1"])
    b2 = NameField(label=SEAT_LABELS["b2"])
    host_seat = forms.ChoiceField(
        label=_("Your seat"),
        choices=[*SEAT_LABELS.items(), ("", _("None: I only keep the score"))],
        required=False,
        widget=forms.RadioSelect,
    )
    first_dealer = forms.ChoiceField(
        label=_("Who deals first"), choices=list(SEAT_LABELS.items()), widget=forms.RadioSelect
    )
    direction = forms.ChoiceField(
        label=_("Which way the deal goes"),
        choices=[
            (rules.COUNTERCLOCKWISE, _("Counter-clockwise: the deal passes to the right")),
            (rules.CLOCKWISE, _("Clockwise, as in Brazil: the deal passes to the left")),
        ],
        widget=forms.RadioSelect,
    )

    @classmethod
    def initial_for(cls, host):
        """Seats as the host's last match left them, so the same table starts in one tap."""
        last = host.hosted.prefetch_related("seats").first()
        if last is None:
            return {
                "a1": host.name,
                "host_seat": "a1",
                "first_dealer": "a1",
                "direction": rules.COUNTERCLOCKWISE,
            }
        seats = last.seat_list()
        initial = {seat.position: seat.name for seat in seats}
        host_seat = next((seat.position for seat in seats if seat.user_id == host.pk), "")
        initial.update(host_seat=host_seat, first_dealer="a1", direction=last.direction)
        return initial

    def seats(self):
        return {position: self.cleaned_data[position] for position in rules.SEATS}


class JoinForm(forms.Form):
    """Take a free seat; a newcomer's name is required, a member's is optional."""

    # Offered: the free seats. Checked: by Match.join, so a seat taken meanwhile
    # is refused with who took it rather than with "not a valid choice".
    seat = forms.CharField(label=_("Your seat"), widget=forms.RadioSelect)
    name = NameField(label=_("Your name"), required=False)

    def __init__(self, *args, free_seats, anonymous, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["seat"].widget.choices = [
            (seat.position, f"{seat.name} · {SEAT_LABELS[seat.position]}") for seat in free_seats
        ]
        if len(free_seats) == 1:
            self.fields["seat"].initial = free_seats[0].position
        if anonymous:
            self.fields["name"].required = True
            self.fields["name"].help_text = _(
                "The name the others see at the table. No sign-up, no password."
            )
        else:
            self.fields["name"].label = _("Your name at this table (optional)")
            self.fields["name"].help_text = _("Leave it empty to keep the seat's name.")
