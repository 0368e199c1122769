"""Limits on how often one address may try to log in or make a guest account.

One set of counters for the API and the pages alike: ten failed log-ins on the
API and ten more on the form are twenty tries, not two tens. The counters live
in the ``limits`` cache, the database's by default, so every worker of every
instance counts on the same ones. The rates in ``settings.RATE_LIMITS`` are
read at each request, so a deployment (or a test) can change them without a
restart.

The client's address is the connection's own (``REMOTE_ADDR``): anyone can
write an X-Forwarded-For header, so it is read only when the deployment says how
many proxies of its own stand in front (``TRUSTED_PROXIES``, DRF's
``NUM_PROXIES``), and then only the address the outermost of them saw.
"""

from functools import wraps

from django.conf import settings
from django.core.cache import caches
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


class AttemptThrottle(SimpleRateThrottle):
    """Requests per client address for one scope; no limit when its rate is unset."""

    @property
    def cache(self):
        return caches["limits"]

    def get_rate(self):
        return settings.RATE_LIMITS.get(self.scope)

    def get_ident(self, request):
        # DRF reads NUM_PROXIES None as "trust the whole X-Forwarded-For"; here no
        # setting means no proxy. With N proxies DRF takes the Nth address from the
        # right: what our outermost proxy saw, not what the client wrote before it.
        if not api_settings.NUM_PROXIES:
            return request.META.get("REMOTE_ADDR")
        return super().get_ident(request)

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


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
