"""The API's JSON parser."""

from django.utils.translation import gettext_lazy as _
from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    """DRF's parser, and a body nested too deeply for Python's json is bad input too
    (it raises RecursionError, which DRF would let through as a 500)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(_("The JSON body is nested too deeply.")) from None
