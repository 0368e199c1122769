from django import template
from django.conf import settings
from django.utils import translation

register = template.Library()


@register.simple_tag
def language_choices():
    """Each language named in itself, so anyone can find their own in the switch."""
    choices = []
    for code, name in settings.LANGUAGES:
        with translation.override(code):
            choices.append((code, str(name)))
    return choices
