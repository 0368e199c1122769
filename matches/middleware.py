"""Headers every response carries, pages and API alike, in development too."""

from django.conf import settings
from django.utils.cache import patch_cache_control

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
