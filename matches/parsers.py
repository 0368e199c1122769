"""The API's JSON parser."""

import codecs
import re

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils import json

from .posted import listed

# Half of a UTF-16 pair on its own: JSON's "\ud800" escape decodes to one, and no
# response, log line or database column can encode it.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONParser(parsers.JSONParser):
    """DRF's parser, refusing too what Python's json reads but the sheet must not take:

    - a key given twice in one object (Python keeps the last, silently, where the
      pages refuse a field posted twice);
    - a lone surrogate in any key or string, which no answer echoing it could encode;
    - a body nested too deeply for Python's json (it raises RecursionError, which
      DRF would let through as a 500).
    """

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            data = json.load(codecs.getreader(encoding)(stream), object_pairs_hook=_object)
        except RecursionError:
            raise ParseError(_("The JSON body is nested too deeply.")) from None
        except ValueError as error:
            raise ParseError(f"JSON parse error - {error}") from None
        _refuse_surrogates(data)
        return data


def _object(pairs):
    keys = [key for key, _value in pairs]
    if any(LONE_SURROGATE.search(key) for key in keys):
        raise ParseError(_unencodable())
    if len(set(keys)) < len(keys):
        seen, twice = set(), set()
        for key in keys:
            (twice if key in seen else seen).add(key)
        raise ParseError(
            _("The JSON body gives %(names)s more than once, so nothing was done.")
            % {"names": listed(twice)}
        )
    return dict(pairs)


def _refuse_surrogates(data):
    """Every string of the body, at any depth (the keys were checked as they were read)."""
    waiting = [data]
    while waiting:
        value = waiting.pop()
        if isinstance(value, str):
            if LONE_SURROGATE.search(value):
                raise ParseError(_unencodable())
        elif isinstance(value, dict):
            waiting.extend(value.values())
        elif isinstance(value, list):
            waiting.extend(value)


def _unencodable():
    return _("The JSON body holds text that is not valid Unicode (a lone surrogate escape).")
