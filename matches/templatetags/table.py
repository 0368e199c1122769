from django import template
from django.conf import settings
from django.utils import translation
from django.utils.html import format_html

register = template.Library()


@register.simple_tag
def language_choices():
    """Each language named in itself, so anyone can find their own in the switch."""
    choices = []
    for code, name in settings.LANGUAGES:
        with translation.override(code):
            choices.append((code, str(name)))
    return choices


@register.filter
def bdi(name):
    """A name as the table typed it, isolated from the words around it, so that a name
    written right to left never turns the sentence around it."""
    return format_html("<bdi>{}</bdi>", name)
