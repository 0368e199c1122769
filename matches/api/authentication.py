"""Who an API token names, read from the database once a request."""

from rest_framework import authentication

# Where a request keeps what its token named (the user and the token, or None).
FOUND = "_token_found"


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication (``Authorization: Token <key>``), reading the token
    and its person once a request: a write with an ``Idempotency-Key`` needs its caller
    before the view runs (``idempotency.caller``), and the view is then told who it was
    without a second query. A token that names nobody, or nobody active, is refused
    each time it is asked about (401)."""

    def authenticate(self, request):
        request = getattr(request, "_request", request)  # Django's, under DRF's Request
        if FOUND not in request.__dict__:
            request.__dict__[FOUND] = super().authenticate(request)
        return request.__dict__[FOUND]
