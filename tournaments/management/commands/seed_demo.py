"""manage.py seed_demo, with the club's tournaments: the sheet's demo night (``matches``'
own command, which this one extends), then two tournaments organised by demo-ana, played
through the same model methods as the pages and the phones:

- "Demo tournament (finished)": 8 pairs, a round robin then a knockout of the top 4, each
  series a single rubber, played to its champion;
- "Demo tournament (in play)": 6 pairs on 2 tables, best of three, round 2 under way.

Running it again replaces both (with their tables' nights); nothing else is touched.
"""

from django.db import transaction

from matches.management.commands.seed_demo import Command as DemoNight
from matches.models import Match, Night, User
from tournaments.models import Tournament

PAIRS = [["Ana", "Rui"], ["Zé", "Maria"], ["Inês", "Tiago"], ["Beatriz", "Duarte"],
         ["Carla", "Nuno"], ["Sofia", "Hugo"], ["Marta", "Filipe"], ["Joana", "Pedro"]]  # fmt: skip
FINISHED, IN_PLAY = "Demo tournament (finished)", "Demo tournament (in play)"


def win_rubber(match_id, side):
    """A bandeira for ``side``: the rubber is won at once."""
    match = Match.objects.get(pk=match_id)
    match.record(match.host, deal=len(match.deal_list()) + 1, side=side, games=4, sweep=True)


def play_round(tournament, winner, *, rubbers=None):
    """Play the round in play, the series' rubbers won by ``winner(series)``'s pair;
    ``rubbers`` rubbers at most (the rest left in play)."""
    played = 0
    while rubbers is None or played < rubbers:
        now = tournament.progress().rounds[-1]
        playing = [series for series in now.series if series.current_match]
        if not playing:
            return
        series = playing[0]
        win_rubber(series.current_match, series.side_of(winner(series)))
        played += 1


class Command(DemoNight):
    help = DemoNight.help + " And two club tournaments: one finished, one in play."

    @transaction.atomic
    def handle(self, *args, **options):
        super().handle(*args, **options)
        ana = User.objects.get(username="demo-ana")
        old = Tournament.objects.filter(organiser=ana, name__in=[FINISHED, IN_PLAY])
        Night.objects.filter(pk__in=old.values("tables__night")).delete()
        old.delete()

        finished = Tournament.objects.open(
            ana, name=FINISHED, pairs=PAIRS, format=Tournament.ROUND_ROBIN_KNOCKOUT,
            knockout_size=4, tables=4, mocas_to_win=1,
        )  # fmt: skip
        # The pair listed higher wins: the standings go 1 to 8 in pairs' order; then the
        # underdogs win every knockout series, and the fourth seed takes the final.
        for _ in range(7):
            finished.start_round(ana)
            play_round(finished, lambda series: min(series.a, series.b))
        finished.start_round(ana)
        play_round(finished, lambda series: max(series.a, series.b))
        finished.start_round(ana)
        play_round(finished, lambda series: max(series.a, series.b))

        in_play = Tournament.objects.open(
            ana, name=IN_PLAY, pairs=PAIRS[:6], tables=2, mocas_to_win=2
        )
        in_play.start_round(ana)
        play_round(in_play, lambda series: series.a)
        in_play.start_round(ana)
        play_round(in_play, lambda series: series.b, rubbers=3)

        self.stdout.write(
            f"\nTwo tournaments of demo-ana's: /tournaments/{finished.pk}/ (finished) and "
            f"/tournaments/{in_play.pk}/ (in play; its projector at "
            f"/tournaments/watch/{in_play.watch_token}/)."
        )
