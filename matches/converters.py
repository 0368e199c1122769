"""Path converters that match only what can name a row, so anything else is a
plain 404 before a view (or the database) ever sees it."""

from django.urls import register_converter

from . import values


class IdConverter:
    """A row id: up to 18 digits, so it always fits the database's bigint."""

    regex = "[0-9]{1,18}"

    def to_python(self, value):
        return int(value)

    def to_url(self, value):
        return str(value)


class TokenConverter:
    """A link token, as secrets.token_urlsafe writes them (PostgreSQL refuses a NUL
    in a query, so a mangled link must not reach one)."""

    regex = "[A-Za-z0-9_-]{1,64}"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


class SeatConverter:
    """One of the four seats (a1, a2, b1, b2)."""

    regex = "|".join(values.SEATS)

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(IdConverter, "id")
register_converter(SeatConverter, "seat")
register_converter(TokenConverter, "token")
