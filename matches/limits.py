"""Limits on how often one address may try to log in, make a guest account, try a
link's token that opens nothing, or read.

One set of counters for the API and the pages alike: ten failed log-ins on the
API and ten more on the form are twenty tries, not two tens. Each counts in fixed
windows of its rate's period (10/minute: ten in each minute of the clock), as a plain
number in a row of ``LimitCount``, so every worker of every instance counts on the
same ones and no process reads anything but numbers another wrote. The rates in
``settings.RATE_LIMITS`` are read at each request, so a deployment (or a test) can
change them without a restart.

The client's address is the connection's own (``REMOTE_ADDR``): anyone can
write an X-Forwarded-For header, so it is read only when the deployment says how
many proxies of its own stand in front (``TRUSTED_PROXIES``, DRF's
``NUM_PROXIES``), and then only the address the outermost of them saw.
"""

import datetime
import time
from functools import wraps

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from . import outside
from .models import LimitCount

# A rate's period by its first letter, as DRF reads them (10/minute, 10/min, 10/m).
PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class Window:
    """The window of ``rate`` (such as ``10/minute``) that now falls in."""

    def __init__(self, rate):
        limit, _slash, period = rate.partition("/")
        self.limit, self.period = int(limit), PERIODS[period[0]]
        self.now = time.time()
        end = (self.now // self.period + 1) * self.period
        self.ends = datetime.datetime.fromtimestamp(end, datetime.UTC)
        self.left = end - self.now  # seconds


def count(scope, address, window, n=1):
    """Count ``n`` more for ``address`` in ``window``, shared by every process; the count now."""
    _sweep(window)
    return LimitCount.add(scope, address, window.ends, n)


# Ended windows' rows go at most once a minute in each process, not at every count.
SWEEP_EVERY = 60.0  # s
_next_sweep = float("-inf")


def _sweep(window):
    global _next_sweep
    if time.monotonic() >= _next_sweep:
        _next_sweep = time.monotonic() + SWEEP_EVERY
        LimitCount.objects.ended(datetime.datetime.fromtimestamp(window.now, datetime.UTC)).delete()


class AttemptThrottle(BaseThrottle):
    """Requests per client address for one scope; no limit when its rate is unset. DRF's
    throttle, so that the API's views take it as they take DRF's own."""

    scope = None

    def get_rate(self):
        return settings.RATE_LIMITS.get(self.scope)

    def get_ident(self, request):
        # DRF reads NUM_PROXIES None as "trust the whole X-Forwarded-For"; here no
        # setting means no proxy. With N proxies DRF takes the Nth address from the
        # right: what our outermost proxy saw, not what the client wrote before it.
        if not api_settings.NUM_PROXIES:
            return request.META.get("REMOTE_ADDR")
        return super().get_ident(request)

    def allow_request(self, request, view):
        rate = self.get_rate()
        if rate is None:
            return True
        self.window = Window(rate)
        return count(self.scope, self.get_ident(request), self.window) <= self.window.limit

    def wait(self):
        return self.window.left


class LoginThrottle(AttemptThrottle):
    scope = "login"


class GuestThrottle(AttemptThrottle):
    scope = "guest"


def too_many(wait):
    """What a refused attempt is told: why, and when to try again."""
    seconds = max(1, round(wait or 1))
    return (
        ngettext(
            "Too many attempts from your address: try again in %(seconds)d second.",
            "Too many attempts from your address: try again in %(seconds)d seconds.",
            seconds,
        )
        % {"seconds": seconds}
        + " "
        + _("Nothing was done.")
    )


def limit_posts(throttle_class, refuse, anonymous_only=False):
    """Count a page's POSTs against ``throttle_class``; past the limit answer
    ``refuse(request, message)`` (a 429) without running the view. With
    ``anonymous_only``, only POSTs that would make a guest account count."""

    def decorator(view):
        @wraps(view)
        def limited(request, *args, **kwargs):
            counted = not (anonymous_only and request.user.is_authenticated)
            if request.method == "POST" and counted:
                throttle = throttle_class()
                if not throttle.allow_request(request, None):
                    response = refuse(request, too_many(throttle.wait()))
                    response["Retry-After"] = str(max(1, round(throttle.wait() or 1)))
                    return response
            return view(request, *args, **kwargs)

        return limited

    return decorator


# Guessing a link's token ------------------------------------------------------------


class GuessThrottle(AttemptThrottle):
    """Links tried with a token that opens nothing (a join, seat or watch link), per
    address. Only the misses count: a table opening its own links is never limited."""

    scope = "guess"

    def blocked(self, request):
        """The seconds to wait while this address has missed too often, else None."""
        rate = self.get_rate()
        if rate is None:
            return None
        self.window, self.address = Window(rate), self.get_ident(request)
        missed = LimitCount.objects.of(self.scope, self.address, self.window.ends)
        return self.wait() if missed >= self.window.limit else None

    def missed(self):
        count(self.scope, self.address, self.window)


def guarded(refuse):
    """A view that opens something by a link's token: an address that has tried too
    many tokens that open nothing is answered ``refuse(request, message)`` (a 429)
    without looking, and every 404 the view answers counts as a miss."""

    def decorator(view):
        @wraps(view)
        def looked_up(request, *args, **kwargs):
            throttle = GuessThrottle()
            wait = throttle.blocked(request)
            if wait is not None:
                response = refuse(request, too_many(wait))
                response["Retry-After"] = str(max(1, round(wait)))
                return response
            response = view(request, *args, **kwargs)
            if response.status_code == 404 and throttle.get_rate() is not None:
                throttle.missed()
            return response

        return looked_up

    return decorator


# Reads --------------------------------------------------------------------------------

# A process tells the shared count about its reads this many at a time: the limit is
# shared by every worker of every instance at one write to the database per batch.
READS_BATCH = 25


class Reads:
    """Reads (GET and HEAD) per address, in windows of the rate's period: generous, so
    that a café's phones behind one address never meet it, while one client hammering
    the server is told to wait (429 with Retry-After). Counted in this process and told
    to the shared count a batch at a time, so the hot path (the poll, 304 from one
    query) costs nothing more but a dictionary's count."""

    def __init__(self):
        self.local = {}  # (address, window's end) -> reads not yet told
        self.over = {}  # address -> the end of the window it is over the limit in

    def refused(self, request, rate):
        """The seconds to wait while this request's address is over ``rate``, else None."""
        window = Window(rate)
        address = AttemptThrottle().get_ident(request)
        if self.over.get(address) == window.ends:
            return window.left
        key = (address, window.ends)
        self.local[key] = self.local.get(key, 0) + 1
        if self.local[key] >= READS_BATCH:
            told, self.local[key] = self.local[key], 0
            self._forget_before(window.ends)
            if count("reads", address, window, told) > window.limit:
                self.over[address] = window.ends
                return window.left
        return None

    def _forget_before(self, ends):
        for key in [key for key in self.local if key[1] < ends]:
            del self.local[key]
        for address in [address for address, over in self.over.items() if over < ends]:
            del self.over[address]


def read_limit(get_response):
    """Middleware: past ``RATE_LIMITS["reads"]`` an address's reads answer 429."""
    reads = Reads()

    def middleware(request):
        rate = settings.RATE_LIMITS.get("reads")
        if rate and request.method in ("GET", "HEAD"):
            wait = reads.refused(request, rate)
            if wait is not None:
                # Answered before the session is read: the page as for someone signed out.
                response = outside.answer(
                    request, too_many(wait), 429, user=AnonymousUser(), messages=()
                )
                response["Retry-After"] = str(max(1, round(wait)))
                return response
        return get_response(request)

    return middleware
