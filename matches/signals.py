"""What a rubber tells the apps built on it.

``rubber_finished`` (``match``, ``by``): a change left the rubber won or ended early,
so what comes next at its table may start (tournaments/receivers.py starts a series'
next rubber). Sent inside the change's transaction with the match locked, so what a
receiver starts commits with the change, or not at all; it may come again for a
rubber already finished (a correction that keeps its winner): a receiver checks.
"""

from django.dispatch import Signal

rubber_finished = Signal()
