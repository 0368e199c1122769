"""What a club's models tell the rest of the app: its receivers listen.

``players_merged`` (``club``): two entries of one player became one (``Club.
merge_players``), sent inside the merge's transaction once every seat is the one
player's: the club's ratings are derived again from its first rubber there.
"""

from django.dispatch import Signal

players_merged = Signal()
