"""Limits on how often one address may try to log in or make a guest account.

One set of counters for the API and the pages alike: ten failed log-ins on the
API and ten more on the form are twenty tries, not two tens. The counters live
in the default cache; the rates in ``settings.RATE_LIMITS`` are read at each
request, so a deployment (or a test) can change them without a restart.
"""

from functools import wraps

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from rest_framework.throttling import SimpleRateThrottle


class AttemptThrottle(SimpleRateThrottle):
    """Requests per client address for one scope; no limit when its rate is unset."""

    def get_rate(self):
        return settings.RATE_LIMITS.get(self.scope)

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
