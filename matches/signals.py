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

``rubber_started`` (``match``, ``seats``): a rubber was opened, or the next one of its
night started (a rematch, a club's next moca), with ``seats`` its Seat rows as saved;
sent inside the transaction that creates it (a club's roster forecasts it there).

``result_changed`` (``match``): a change altered who won the rubber (won, or back in
play, or the other side now): sent inside the change's transaction with the match
locked, after its new result is saved (a club's ratings follow its rubbers' results).
"""

from django.dispatch import Signal

sheet_changed = Signal()
topic_changed = Signal()
rubber_finished = Signal()
rubber_started = Signal()
result_changed = Signal()
