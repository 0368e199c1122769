"""What a tournament does when one of its rubbers finishes: its table plays on."""

from django.dispatch import receiver

from matches.signals import rubber_finished

from .models import Tournament


@receiver(rubber_finished, dispatch_uid="tournaments.play_on")
def play_on(sender, match, by, **kwargs):
    """A rubber at a tournament's table finished: the series' next rubber, or the
    round's next series, starts there (``Tournament.play_on``). One query for a rubber
    of an ordinary night."""
    tournament = Tournament.objects.filter(tables__night=match.night_id).first()
    if tournament is not None:
        tournament.play_on(match)
