"""A database outage answers 503 "try again in a moment", not a 500 with a traceback.

While the database cannot be reached (it is restarting, the network to it is
down), every request fails the same way, and nothing the client did is wrong: the
API answers JSON with ``detail`` and ``Retry-After``, people get a small page
saying so, and the log gets one line a request naming the cause, not a traceback
each.

Two ways in. The views' middleware (``middleware.ViewRefusals``) answers for them: the
session, the signed-in person and the messages are read lazily, in the view, so
a failure to read them lands there too (DRF leaves these errors to Django, as
its own exception handler does). A middleware that reads the database itself
(the idempotency keys) is past any other middleware's reach, since Django turns
each middleware's exception into a 500 where it was raised: ``server_error``,
the URLconf's ``handler500``, answers those.
"""

import sys

from django.contrib.auth.models import AnonymousUser
from django.db import InterfaceError, OperationalError
from django.utils.cache import add_never_cache_headers
from django.utils.log import log_response
from django.utils.translation import gettext as _
from django.views import defaults

from . import outside

# Seconds: a restarting PostgreSQL is usually back within a few.
RETRY_AFTER = 5

# Django raises these when it cannot connect, or loses the connection it had.
UNREACHABLE = (OperationalError, InterfaceError)


def answer(request, error):
    """The 503 for a request that could not reach the database, logged in one line.

    The page is drawn as for someone signed out and with no messages: both would be
    read from the database."""
    message = _("The database cannot be reached right now: try again in a moment.")
    response = outside.answer(request, message, 503, user=AnonymousUser(), messages=())
    response["Retry-After"] = str(RETRY_AFTER)
    add_never_cache_headers(response)
    # Logged here, Django leaves out its own line for this response (and its traceback).
    said = str(error).strip().splitlines()
    log_response(
        "%s: %s (the database: %s)",
        response.reason_phrase,
        request.path,
        said[0][:200] if said else type(error).__name__,
        response=response,
        request=request,
    )
    return response


def server_error(request):
    """``handler500``: Django calls it with the exception nothing else answered still
    being handled, a middleware's too; an outage is a 503 there as well."""
    error = sys.exc_info()[1]
    if isinstance(error, UNREACHABLE):
        return answer(request, error)
    return defaults.server_error(request)
