"""Django's PostgreSQL backend, whose health check asks the connection's socket first.

With ``CONN_HEALTH_CHECKS`` Django checks a connection kept from an earlier request
before a request first uses it, by sending it ``SELECT 1`` and waiting for the answer:
one round trip more in every request, as long as the one query an unchanged poll or a
kept sheet makes. A connection the server has ended (a restart, ``pg_terminate_backend``,
an idle timeout) has something to read, though: the server's last message, then the end
of the stream. Between requests a connection that does not ``LISTEN`` is sent nothing
else. So the check here looks whether the socket has anything to read, without waiting,
and only then asks the server as Django does; a quiet socket is a working connection.
A connection in the middle of a transaction is asked as Django asks it.
"""

import select

from django.db.backends.postgresql import base
from psycopg import pq


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self):
        if self.connection is None or self.connection.closed:
            return False
        if self.connection.info.transaction_status != pq.TransactionStatus.IDLE:
            return super().is_usable()
        socket = select.poll()  # select.select() refuses descriptors past 1023
        socket.register(self.connection.fileno(), select.POLLIN)
        return not socket.poll(0) or super().is_usable()
