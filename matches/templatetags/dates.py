from django import template
from django.template.defaultfilters import date
from django.utils.dates import MONTHS, MONTHS_ALT
from django.utils.translation import get_language

register = template.Library()

# Languages that write a month's name in lower case within a date ("30 de novembro de
# 2025"), where Django's own catalogues give it capitalised, as on its own.
LOWER_CASE_MONTHS = ("pt",)


@register.filter(expects_localtime=True, is_safe=False)
def written_date(value, format_name="DATE_FORMAT"):
    """A date (or date and time) in words, as the language writes it: Django's ``date``
    filter, with the month in lower case where the language wants it so."""
    text = date(value, format_name)
    if (get_language() or "").split("-")[0] in LOWER_CASE_MONTHS:
        for name in (*MONTHS.values(), *MONTHS_ALT.values()):
            text = text.replace(str(name), str(name).lower())
    return text
