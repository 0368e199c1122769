"""manage.py seed_demo: a demo night to try the app with.

Four demo accounts (demo-ana, demo-rui, demo-ze, demo-maria) and one night of
five rubbers, played through the same model methods as the pages, so the
history of every change is there too. Running it again replaces the demo
night it made before; nothing else is touched.
"""

import secrets

from django.core.management.base import BaseCommand
from django.db import transaction

from matches import rules
from matches.models import Match, Night, User

PLAYERS = {"a1": ("demo-ana", "Ana"), "a2": ("demo-rui", "Rui"),
           "b1": ("demo-ze", "Zé"), "b2": ("demo-maria", "Maria")}  # fmt: skip
SWAP_PARTNERS = {"a1": "a1", "a2": "b1", "b1": "a2", "b2": "b2"}
NIGHT_NAME = "Demo night"


def play(match, by, *cells):
    for side, games, *sweep in cells:
        number = rules.current_deal(match.sheet())
        match.record(by, deal=number, side=side, games=games, sweep=bool(sweep))


class Command(BaseCommand):
    help = "Fill a demo night (ties, a bandeira, a shutout, one ended early, a rematch)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--password",
            help="The demo accounts' password (default: a new random one, printed).",
        )

    @transaction.atomic
    def handle(self, *args, password=None, **options):
        password = password or secrets.token_urlsafe(9)
        people = {}
        for position, (username, name) in PLAYERS.items():
            user, _created = User.objects.get_or_create(username=username)
            user.display_name = name
            user.set_password(password)
            user.save()
            people[position] = user
        ana, ze = people["a1"], people["b1"]
        replaced, _counts = Night.objects.filter(host=ana, name=NIGHT_NAME).delete()

        first = Match.objects.start(
            ana,
            {position: name for position, (_username, name) in PLAYERS.items()},
            host_seat="a1",
            night_name=NIGHT_NAME,
            place="Café Central",
        )
        for position in ("a2", "b1", "b2"):
            first.join(people[position], token=first.join_token, position=position)
        # 1. A tie, then Ana & Rui win 4–0: a shutout. The host corrects a slip.
        play(first, ana, ("a", 0), ("b", 0), ("a", 2))
        first.correct(ana, number=2, a=3, b=0)
        play(first, ana, ("a", 1))
        # 2. Partners swapped: Rui & Maria take every trick, a bandeira.
        second = first.rematch(ana, SWAP_PARTNERS)
        play(second, ana, ("b", 4, "sweep"))
        # 3. Same pairs; a revoke is noted, and Zé ends the rubber early.
        third = second.rematch(ana)
        play(third, ana, ("a", 1), ("b", 2))
        third.add_note(
            ze, side="b", deal=2, text="Rui revoked in deal 2: two games off, kept by hand."
        )
        third.end(ze)
        # 4. Back to the first pairs: 4–1, a chapéu.
        fourth = third.rematch(ana, SWAP_PARTNERS)
        play(fourth, ana, ("b", 1), ("a", 2), ("a", 2))
        # 5. Still in play, a tie pending.
        fifth = fourth.rematch(ana)
        play(fifth, ana, ("a", 1), ("b", 0), ("a", 0))

        self.stdout.write(
            f"{'Replaced' if replaced else 'Made'} the demo night: "
            f"{first.night.matches.count()} rubbers at /nights/{first.night_id}/.\n"
            f"Log in as demo-ana, demo-rui, demo-ze or demo-maria with the password {password}"
        )
