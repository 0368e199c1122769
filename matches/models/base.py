"""What every model shares: refusals in the active language, tokens, and names as typed."""

import secrets
import unicodedata

from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .. import values

SIDE_CHOICES = [(side, side) for side in values.SIDES]
SEAT_CHOICES = [(seat, seat) for seat in values.SEATS]


def new_token() -> str:
    return secrets.token_urlsafe(24)  # 192 bits


def explain(refusal: values.Refusal) -> str:
    """A refusal's message in the active language.

    Templates from rules.py are plain English marked for translation; the ones
    here are lazy translations. Either way gettext gives the active language.
    """
    template = gettext(str(refusal.template))
    if not refusal.params:
        return template
    params = {
        key: gettext(str(value)) if isinstance(value, str | Promise) else value
        for key, value in refusal.params.items()
    }
    return template % params


class NotAllowed(values.Refusal):
    """The person may not do this in this match."""

    status = 403


class NotFound(values.Refusal):
    status = 404


# What free text may not hold: controls, and the invisible formatting characters
# (zero-width spaces and joiners, direction marks and overrides) that would hide it
# or turn the words around it.
HIDDEN = {"Cc", "Cf", "Co", "Cs", "Cn"}


def clean_text(text, what, *, longest: int, required=False, empty=None) -> str:
    """Free text as the table will read it, one rule for every field people type (names,
    a night's name, its place, a note): NUL refused (PostgreSQL cannot store it),
    invisible and direction-changing characters removed, spaces collapsed onto one
    line, ``longest`` characters at most, and something anyone could read. Blank is
    allowed unless ``required`` (``empty`` then says why)."""
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise values.InvalidInput(_("%(what)s must be text."), what=what)
    if "\x00" in text:
        raise values.InvalidInput(_("%(what)s can't contain a NUL character."), what=what)
    text = " ".join(
        "".join(c for c in text if c.isspace() or unicodedata.category(c) not in HIDDEN).split()
    )
    if not text and required:
        raise values.InvalidInput(empty or _("%(what)s can't be empty."), what=what)
    if text and not any(unicodedata.category(c)[0] in "LNPS" for c in text):
        raise values.InvalidInput(_("%(what)s has nothing anyone could read."), what=what)
    if len(text) > longest:
        raise values.InvalidInput(
            _("%(what)s is too long: %(longest)s characters at most."), what=what, longest=longest
        )
    return text


def clean_name(name, what=None) -> str:
    """A display name: free text, required, 40 characters at most."""
    return clean_text(name, what or _("Name"), longest=40, required=True)


def clean_seat_name(name) -> str:
    return clean_name(name, what=_("Each seat's name"))


def clean_night_name(name) -> str:
    return clean_text(name, _("The night's name"), longest=80)


def clean_place(place) -> str:
    return clean_text(place, _("The place"), longest=80)


def clean_note(text) -> str:
    return clean_text(
        text,
        _("A note"),
        longest=500,
        required=True,
        empty=_("Say what happened: the note can't be empty."),
    )


def clean_player_name(name) -> str:
    """The name a person gives themselves at the table (a guest, a joiner)."""
    return clean_name(name, what=_("Your name"))


# Refusals given in more than one place (a page, the API, a model's change): each is
# said here once, so that all of them say the same words.


def nothing_here():
    """A page, match or night that is not there, or not the viewer's to see: one
    answer for both, so that nobody learns which ids exist."""
    return _("There is nothing here, or it is not yours to see. Is it your match? Log in.")


def no_rematch_in_a_tournament():
    return _(
        "A tournament's rubbers follow its series, and the organiser's page runs it: there "
        "is no rematch here."
    )


def join_link_gone():
    return _("This join link is not valid any more: ask the host for the new one.")


def seat_link_gone():
    return _("This link for a seat is not valid any more: ask the host for a new one.")


def watch_link_gone():
    return _("This watch link is not valid any more: ask the host for the new one.")


def no_such_note():
    return _("There is no such note in this match.")


def no_such_seat_request():
    return _("There is no such request for a seat in this match.")
