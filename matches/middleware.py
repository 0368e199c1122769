"""What every response gets, pages and API alike, in development too: its headers,
and a refusal answered the same way whatever DEBUG says."""

from django.conf import settings
from django.http import Http404
from django.urls import get_resolver, get_urlconf
from django.utils.cache import patch_cache_control

from . import outage

# Every script and style is a static file of our own, so nothing inline is
# allowed to run: an injected <script> or onclick= does nothing. htmx's own
# indicator styles are off (see base.html's htmx-config).
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    ]
)


def content_security_policy(get_response):
    def middleware(request):
        response = get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response

    return middleware


def private_answers(get_response):
    """``Cache-Control: private, no-store`` on every answer that may be someone's own:
    to a signed-in browser (its session cookie), to an API token, and to every write
    (a guest's new token). Neither the browser's disk nor a shared cache keeps a
    person's sheets, history or exports. The sheet's ETag still saves the work: its
    poll and API clients send If-None-Match themselves and get 304 while unchanged.

    Only the request's headers decide, never the session, so an unchanged poll stays
    one query. Static files are answered before this (whitenoise) and keep their long
    caching; an answer that says it may be shared (``public``) is left as it is."""

    def middleware(request):
        response = get_response(request)
        personal = (
            request.method not in ("GET", "HEAD")
            or settings.SESSION_COOKIE_NAME in request.COOKIES
            or "Authorization" in request.headers
        )
        if personal and "public" not in response.get("Cache-Control", ""):
            patch_cache_control(response, private=True, no_store=True)
        return response

    return middleware


class ViewRefusals:
    """Middleware: what a view raises that is no fault of the code, answered the site's
    way whatever DEBUG says.

    A 404: with DEBUG on, Django answers an ``Http404`` raised in a view with its page of
    URL patterns, which htmx would swap into a box beside the keys (or a phone would
    show whole) where a player expects the sentence production gives; here the
    URLconf's ``handler404`` says it in every configuration (Django's technical page
    stays for a path no URL pattern matches, where a developer wants it). A database
    out of reach: 503, "try again in a moment" (``outage.answer``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, Http404):
            handler = get_resolver(get_urlconf()).resolve_error_handler(404)
            return handler(request, exception)
        if isinstance(exception, outage.UNREACHABLE):
            return outage.answer(request, exception)
        return None
