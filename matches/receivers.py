"""What the app does when its rows change: the streams hear of each change to a rubber
(``live``), and a rubber changed by another way than its own methods counts it as a
change (``Match.recount``)."""

from django.db.models import QuerySet
from django.db.models.signals import post_delete, post_save

from . import live, signals
from .models import Deal, Match, RevokeNote, Seat, SeatRequest
from .models.match import changing

ROWS = (Seat, Deal, RevokeNote, SeatRequest)


def counted(sender, instance, raw=False, origin=None, **kwargs):
    """A rubber's seat, deal, note or request for a seat, saved or deleted by another way
    than the match's own methods (the admin, a shell, a command): the match derives its
    result again from its deals, bumps its version and says so in its history. A
    deletion that comes from deleting something else (the match, its night, a person)
    counts nothing: the match may be going with it."""
    if raw or instance.match_id in changing.get():
        return
    deleted = origin.model if isinstance(origin, QuerySet) else type(origin)
    if origin is not None and deleted is not sender:
        return
    match = Match.objects.filter(pk=instance.match_id).first()
    if match is not None:
        match.recount()


def match_counted(sender, instance, created=False, raw=False, **kwargs):
    """The match row itself, saved by another way than its own methods."""
    if not (raw or created or instance.pk in changing.get()):
        instance.recount()


def connect():
    signals.sheet_changed.connect(live.announce, dispatch_uid="matches.live.announce")
    signals.topic_changed.connect(live.announce_topic, dispatch_uid="matches.live.topic")
    for model in ROWS:
        post_save.connect(counted, sender=model, dispatch_uid=f"matches.counted.{model.__name__}")
        post_delete.connect(counted, sender=model, dispatch_uid=f"matches.gone.{model.__name__}")
    post_save.connect(match_counted, sender=Match, dispatch_uid="matches.counted.Match")
