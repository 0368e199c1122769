"""What the club shows on its rubbers' pages, for those who may read the club."""

from django import template

from clubs.models import Club

register = template.Library()


@register.simple_tag
def readable_club(club_id, user):
    """Club ``club_id`` if ``user`` organises it or plays there, else None."""
    return Club.objects.readable_by(user).filter(pk=club_id).first()
