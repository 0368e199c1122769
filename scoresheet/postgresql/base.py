"""Django's PostgreSQL backend, whose health check asks the connection's socket first.

With ``CONN_HEALTH_CHECKS`` Django checks a connection kept from an earlier request
before a request first uses it, by sending it ``SELECT 1`` and waiting for the answer:
one round trip more in every request, as long as the one query an unchanged poll or a
kept sheet makes. A connection the server has ended (a restart, ``pg_terminate_backend``,
``idle_session_timeout``) has something to read, though: the server's last message, then
the end of the stream. Between requests a connection that does not ``LISTEN`` is sent
nothing else. So for a connection that worked a moment ago (``QUIET``) the check looks
whether its socket has anything to read, without waiting, and only then asks the server
as Django does; a quiet socket is a working connection.

Django's own check is kept where the socket cannot tell: for a connection in the middle
of a transaction (one that failed says nothing on the wire), and for one left alone for
longer than ``QUIET``, which something on the way (a NAT, a load balancer) may have
forgotten after a few idle minutes without a word to either end: only a round trip
finds that out. A server under load checks every connection well within ``QUIET``.
"""

import select
import time

from django.db.backends.postgresql import base
from psycopg import pq

QUIET = 30.0  # s without a check, after which the server is asked again


class DatabaseWrapper(base.DatabaseWrapper):
    checked_at = None  # time.monotonic() when a check last found the connection working

    def is_usable(self):
        if self.connection is None or self.connection.closed:
            return False
        usable = self._socket_says_usable() or super().is_usable()
        self.checked_at = time.monotonic() if usable else None
        return usable

    def _socket_says_usable(self) -> bool:
        """Whether the connection, found working less than ``QUIET`` ago and not in a
        transaction, has nothing to read: False when only the server can tell."""
        if self.connection.info.transaction_status != pq.TransactionStatus.IDLE:
            return False
        if self.checked_at is None or time.monotonic() - self.checked_at > QUIET:
            return False
        socket = select.poll()  # select.select() refuses descriptors past 1023
        socket.register(self.connection.fileno(), select.POLLIN)
        return not socket.poll(0)
