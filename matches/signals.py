"""What a rubber tells the rest of the app: ``live`` and the apps built on it listen.

``sheet_changed`` (``match``, ``seats``): a change to a rubber, sent inside its
transaction with the match locked, at its new version (``Match._commit``); ``seats``
says who sits at the table may have changed. ``live`` tells the rubber's open streams
once the transaction commits.

``topic_changed`` (``topic``, ``version``): a thing of another app that streams follow
(a tournament, say) changed, inside the change's transaction.

``rubber_finished`` (``match``, ``by``): a change left the rubber won or ended early,
so what comes next at its table may start (tournaments/receivers.py starts a series'
next rubber). Sent inside the change's transaction with the match locked, so what a
receiver starts commits with the change, or not at all; it may come again for a
rubber already finished (a correction that keeps its winner): a receiver checks.
"""

from django.dispatch import Signal

sheet_changed = Signal()
topic_changed = Signal()
rubber_finished = Signal()
