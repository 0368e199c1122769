"""/api/docs/ in a real Chromium: Swagger UI runs offline under the site's
Content-Security-Policy and lists the API."""

import pytest

pytestmark = pytest.mark.browser


def test_swagger_ui_shows_the_api_offline_under_the_csp(app, page):
    refused = []
    page.on("console", lambda message: refused.append(message.text)
            if "Content Security Policy" in message.text else None)  # fmt: skip
    outside = []
    page.on("request", lambda request: outside.append(request.url)
            if not request.url.startswith(app.url) else None)  # fmt: skip
    page.goto(f"{app.url}/api/docs/")
    page.get_by_text("/api/matches/{id}/entries/").first.wait_for(timeout=15000)
    assert page.get_by_text("SquareScores API").first.is_visible()
    assert refused == []
    assert outside == []
