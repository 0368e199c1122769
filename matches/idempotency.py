"""Every tap counts once: writes that carry an ``Idempotency-Key``.

A phone sends a fresh key with every tap and the same key when it sends that tap
again (after a timeout, a dead network, a reload). The first request with a key
runs and its answer is kept; a repeat with the same key and the same body gets
that answer again (same status, same body) and changes nothing; the same key
with another body is refused with 422. Two repeats racing each other wait for
the first: its row is locked until it has answered.
"""

import hashlib
import re
import time
from datetime import timedelta

from django.db import transaction
from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework.exceptions import AuthenticationFailed

from . import outside
from .api.authentication import TokenAuthentication
from .models import IdempotentRequest

HEADER = "Idempotency-Key"
KEY = re.compile(r"[\x20-\x7e]{1,64}")  # 1 to 64 printable ASCII characters
WRITES = ("POST", "PUT", "PATCH", "DELETE")
KEPT_FOR = timedelta(hours=24)
# The headers that make an answer what it is, kept with its body.
KEPT_HEADERS = (
    "Content-Type",
    "Location",
    "ETag",
    "Cache-Control",
    "Retry-After",
    "HX-Redirect",
    "HX-Retarget",
    "HX-Reswap",
    "HX-Trigger",
)


def caller(request) -> str | None:
    """Who sent the request: their account, by the session or by an API token that is
    one of ours; None for someone who is nobody yet (no session, no token, a token that
    names nobody), whose key is not kept: a key is only ever answered again to the
    person who sent it, and nobody fills the table with keys of their own."""
    if request.user.is_authenticated:
        return f"u{request.user.pk}"
    try:
        found = TokenAuthentication().authenticate(request)  # the API's reading, kept
    except AuthenticationFailed:
        return None
    return None if found is None else f"u{found[0].pk}"


def kept(request, response) -> bool:
    """Whether an answer is the one a retry with its key gets again: what the view
    answered, refusals included, but not a refusal given before the view was reached (a
    CSRF token out of date: the corrected retry must run), nor one of how often (429),
    nor a 5xx, after which nothing changed and the retry runs again."""
    return (
        getattr(request, "reached_view", False)
        and response.status_code < 500
        and response.status_code != 429
    )


def fingerprint(request) -> str:
    digest = hashlib.sha256(f"{request.method} {request.get_full_path()}\n".encode())
    digest.update(request.body)
    return digest.hexdigest()


def replay(kept) -> HttpResponse:
    response = HttpResponse(bytes(kept.body), status=kept.status)
    for name, value in kept.headers.items():
        response[name] = value
    response["Idempotent-Replayed"] = "true"
    return response


# Keys are answered again for a day: older ones go as new ones come, at most once a
# minute in each process (a delete of its own, and its commit, for every tap would
# double what a tap costs), so the table holds about a day of writes and nobody has to
# clear it.
FORGET_EVERY = 60.0  # s
_forgotten_at = None


def forget_old_keys():
    global _forgotten_at
    now = time.monotonic()
    if _forgotten_at is not None and now - _forgotten_at < FORGET_EVERY:
        return
    _forgotten_at = now
    IdempotentRequest.objects.filter(created__lt=timezone.now() - KEPT_FOR).delete()


class Idempotency:
    """Middleware: answer a write with a key it has seen from the answer kept."""

    def __init__(self, get_response):
        self.get_response = get_response

    def process_view(self, request, view, args, kwargs):
        # Called once every middleware before has let the request through (CSRF
        # among them): from here on the answer is the view's.
        request.reached_view = True

    def __call__(self, request):
        get_response = self.get_response
        key = request.headers.get(HEADER)
        if key is None or request.method not in WRITES:
            return get_response(request)
        if not KEY.fullmatch(key):
            return outside.answer(
                request, _("The Idempotency-Key must be 1 to 64 printable ASCII characters."), 400
            )
        who = caller(request)
        if who is None:
            return get_response(request)
        sent = fingerprint(request)
        forget_old_keys()
        with transaction.atomic():
            # The first request with this key makes its row, in the transaction it runs
            # in; a repeat racing it waits on that row (its insert, then its lock) until
            # the first has answered, and then finds the answer. Should the first fail
            # and roll back, its row goes with it and the repeat runs.
            made = IdempotentRequest(caller=who, key=key, fingerprint=sent)
            IdempotentRequest.objects.bulk_create([made], ignore_conflicts=True)
            row = IdempotentRequest.objects.select_for_update().get(caller=who, key=key)
            if row.created < timezone.now() - KEPT_FOR:
                row.fingerprint, row.status, row.created = sent, None, timezone.now()
            if row.fingerprint != sent:
                return outside.answer(
                    request,
                    _(
                        "This Idempotency-Key was sent with another request: send a new key "
                        "with each new request. Nothing was done."
                    ),
                    422,
                )
            if row.status is not None:
                return replay(row)
            response = get_response(request)
            if kept(request, response) and not response.streaming:
                row.status = response.status_code
                row.body = response.content
                row.headers = {name: response[name] for name in KEPT_HEADERS if name in response}
                row.save()
            # Otherwise nothing is kept: the retry runs again (after a 5xx the
            # transaction this request ran in is rolled back if the view raised, the
            # key's row with it).
            return response
