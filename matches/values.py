"""The values people type, read by one rule each, and the words of the table they name.

A side, a seat, a direction, a house rule; a whole number, a yes or no; and the refusal
that says why a value was not taken. Like ``rules``, nothing here knows about Django:
plain values in, plain values out. Every page and the API read what people send with
these, so the same bad input gets the same message everywhere.

Messages are English templates marked with ``_`` (a no-op here, so that
``makemessages`` finds them) and formatted with ``params``; the Django side
translates the template before formatting it.
"""

from math import isfinite


def _(message):
    return message


SIDES = ("a", "b")
SEATS = ("a1", "a2", "b1", "b2")
COUNTERCLOCKWISE = "counterclockwise"
CLOCKWISE = "clockwise"
DIRECTIONS = (COUNTERCLOCKWISE, CLOCKWISE)
# After a redeal the deal passes on (the default), or the same dealer deals again:
# "melar", as some Brazilian tables play it. A house rule, chosen when the match opens.
NEXT_DEALER = "next_dealer"
SAME_DEALER = "same_dealer"
REDEAL_RULES = (NEXT_DEALER, SAME_DEALER)


class Refusal(Exception):
    """A request the sheet refuses. Nothing was changed."""

    status = 400

    def __init__(self, template, *, data=None, **params):
        self.template = template
        self.params = params
        self.data = data or {}  # what a program needs besides the sentence, e.g. {"next": 7}
        super().__init__(template % params if params else template)

    @property
    def message(self) -> str:
        return str(self)


class InvalidInput(Refusal):
    """The input itself is wrong: a number out of range, a contradiction."""


class Conflict(Refusal):
    """The sheet already holds something that rules this out."""

    status = 409


TICKED = ("on", "true", "1", "yes")
UNTICKED = ("", "off", "false", "0", "no")


def ticked(value: object) -> bool:
    """A yes or no: a form's tick box ("on", or nothing at all) or a JSON boolean."""
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    text = str(value).strip().lower() if isinstance(value, str | int) else None
    if text in TICKED:
        return True
    if text in UNTICKED:
        return False
    raise InvalidInput(
        _("A box is either ticked or not: %(value)s is neither."), value=str(value)[:20]
    )


def check_side(side: object) -> str:
    if not isinstance(side, str) or side not in SIDES:
        raise InvalidInput(_("The side must be a or b."))
    return side


def check_seat(seat: object, refusal: str | None = None) -> str:
    if not isinstance(seat, str) or seat not in SEATS:
        raise InvalidInput(refusal or _("Pick one of the four seats."))
    return seat


def check_host_seat(seat: object) -> str | None:
    """The seat the host takes, or none (blank) to keep the sheet without playing."""
    if seat in (None, ""):
        return None
    return check_seat(seat, _("The host's seat must be one of the four seats, or none."))


def check_first_dealer(seat: object) -> str:
    return check_seat(seat, _("The first dealer must be one of the four seats."))


def check_direction(direction: object) -> str:
    if not isinstance(direction, str) or direction not in DIRECTIONS:
        raise InvalidInput(_("The direction must be counterclockwise or clockwise."))
    return direction


def check_redeal_rule(rule: object) -> str:
    if not isinstance(rule, str) or rule not in REDEAL_RULES:
        raise InvalidInput(_("After a redeal the deal goes to next_dealer or stays (same_dealer)."))
    return rule


def read_deal(value: object, current: int | None = None) -> int:
    """A deal's number, from 1 (up to the current deal, when given)."""
    return whole_number(value, _("The deal"), 1, current)


def read_version(value: object) -> int:
    """The version of the sheet a person acted on."""
    return whole_number(value, _("The version"), 1)


def read_games(value: object) -> int:
    return whole_number(value, _("Games"))


def whole_number(value: object, what: str, low: int = 0, high: int | None = None) -> int:
    """Read a whole number from a form or JSON value, between low and high.

    Accepts ints, integral floats and digit strings; refuses booleans,
    fractions, NaN, infinities, text and anything out of range.
    """
    number = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if isfinite(value) and value.is_integer():
            number = int(value)
    elif isinstance(value, str):
        text = value.strip()
        if text.isascii() and text.removeprefix("-").isdigit() and len(text) <= 12:
            number = int(text)
    if number is None:
        raise InvalidInput(_("%(what)s must be a whole number."), what=what)
    if number < 0 <= low and high is None:
        # A count on the sheet (games); a bounded number (card points, cards) says its range.
        raise InvalidInput(_("%(what)s can't be negative: the sheet only goes upward."), what=what)
    if number < low and high is None:
        raise InvalidInput(
            _("%(what)s must be a whole number, %(low)s or more."), what=what, low=low
        )
    if number < low or (high is not None and number > high):
        raise InvalidInput(
            _("%(what)s must be a whole number from %(low)s to %(high)s."),
            what=what,
            low=low,
            high=high,
        )
    return number
