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
from datetime import timedelta

from django.db import transaction
from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _

from . import outside
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
    """Who sent the request: their account (the session), else a digest of their
    API token; None for someone who is nobody yet, whose key is not kept: a key is
    only ever answered again to the person who sent it."""
    if request.user.is_authenticated:
        return f"u{request.user.pk}"
    credentials = request.headers.get("Authorization")
    if credentials:
        return "t" + hashlib.sha256(credentials.encode()).hexdigest()[:40]
    return None


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


def idempotency(get_response):
    """Middleware: answer a write with a key it has seen from the answer kept."""

    def middleware(request):
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
        kept, _created = IdempotentRequest.objects.get_or_create(
            caller=who, key=key, defaults={"fingerprint": sent}
        )
        with transaction.atomic():
            # A repeat waits here while the first with this key runs.
            kept = IdempotentRequest.objects.select_for_update().get(pk=kept.pk)
            if kept.created < timezone.now() - KEPT_FOR:
                kept.fingerprint, kept.status, kept.created = sent, None, timezone.now()
            if kept.fingerprint != sent:
                return outside.answer(
                    request,
                    _(
                        "This Idempotency-Key was sent with another request: send a new key "
                        "with each new request. Nothing was done."
                    ),
                    422,
                )
            if kept.status is not None:
                return replay(kept)
            response = get_response(request)
            if response.status_code < 500 and not response.streaming:
                kept.status = response.status_code
                kept.body = response.content
                kept.headers = {name: response[name] for name in KEPT_HEADERS if name in response}
                kept.save()
            # A 5xx keeps nothing: the retry runs again, and the transaction this
            # request ran in is rolled back if the view raised.
            return response

    return middleware
