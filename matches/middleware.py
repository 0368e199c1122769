"""Headers every response carries, pages and API alike, in development too."""

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
