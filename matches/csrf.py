"""The CSRF token of a form, as Django's ``get_token`` makes it (the request's secret
under a fresh mask; the cookie renewed), with its mask drawn in one call that keeps the
GIL: ``token``, for the sheet fragments' holes (``fragments``), and ``context``, the
templates' ``csrf_token`` (settings.TEMPLATES).

``get_token`` draws its mask a character at a time from ``os.urandom``: 32 calls, each
letting go of the GIL. Beside a busy thread of the same worker (another request, the
event loop) each may then wait for that thread's turn to end before going on, up to 5 ms
(``sys.getswitchinterval``). Measured on these machines: 0.04 ms a token alone, 4.9 ms
beside a busy thread; drawn here, 0.01 and 0.02 ms. OpenSSL's generator is as secure.
"""

import ssl

from django.middleware.csrf import CSRF_ALLOWED_CHARS, get_token
from django.utils.functional import SimpleLazyObject

CHARS = CSRF_ALLOWED_CHARS  # a token's alphabet, its secret's and its mask's


def token(request) -> str:
    """A token for a form of this request's answer, which the CSRF check takes."""
    secret = request.META.get("CSRF_COOKIE")
    if secret is None:  # none yet: get_token makes the secret, and its cookie
        return get_token(request)
    request.META["CSRF_COOKIE_NEEDS_UPDATE"] = True  # as get_token: its expiry renewed
    mask = _random_indices(len(secret))
    cipher = (
        CHARS[(CHARS.index(char) + shift) % len(CHARS)]
        for char, shift in zip(secret, mask, strict=True)
    )
    return "".join(CHARS[shift] for shift in mask) + "".join(cipher)


def context(request) -> dict:
    """A context processor: ``{% csrf_token %}``'s token, made when a template uses it.
    Listed after Django's own, which it replaces."""
    return {"csrf_token": SimpleLazyObject(lambda: token(request))}


def _random_indices(count) -> list[int]:
    """``count`` indices into ``CHARS``, each as likely as any other: random bytes,
    those past the last whole multiple of its length left out."""
    among = len(CHARS)
    whole = 256 // among * among
    drawn = []
    while len(drawn) < count:
        drawn += [byte % among for byte in ssl.RAND_bytes(2 * count) if byte < whole]
    return drawn[:count]
