"""The watch link: a large read-only sheet for a shared screen, live like the sheet."""

from .pages import HTMX, browser, text


def test_anyone_with_the_link_sees_the_sheet_with_the_pairs_names(match, ana, ze):
    match.record(ze, deal=1, side="b", games=2)

    response = browser().get(f"/watch/{match.watch_token}/")

    assert response.status_code == 200
    page = text(response)
    assert '<body class="watch"' in page
    assert "Ana &amp; Rui: 0 games, Zé &amp; Maria: 2 games." in page
    assert "Nós" not in page


def test_the_watch_view_has_no_forms_for_the_sheet(match, ana):
    match.record(ana, deal=1, side="a", games=1)

    page = text(browser(ana).get(f"/watch/{match.watch_token}/"))

    for part in ("/entries/", "/undo/", "/end/", "/notes/", "/renew/", "/deals/", "/calculator/"):
        assert part not in page
    assert f'hx-get="/watch/{match.watch_token}/sheet/?rubber={match.pk}"' in page


def test_the_watch_poll_uses_its_own_etag(match, ana):
    poll = f"/watch/{match.watch_token}/sheet/?rubber={match.pk}"
    response = browser().get(poll, **HTMX)
    assert response.status_code == 200
    assert response["ETag"] == f'"{match.version}-w{match.pk}-en"'

    unchanged = browser().get(poll, HTTP_IF_NONE_MATCH=response["ETag"], **HTMX)
    assert unchanged.status_code == 304

    match.record(ana, deal=1, side="a", games=1)
    changed = browser().get(poll, HTTP_IF_NONE_MATCH=response["ETag"], **HTMX)
    assert changed.status_code == 200
    assert '<span class="cell">1</span><span class="by">Ana</span>' in text(changed)


def test_a_renewed_watch_link_stops_working(match, ana):
    old = match.watch_token
    match.renew_links(ana)

    assert browser().get(f"/watch/{old}/").status_code == 404
    response = browser().get(f"/watch/{old}/sheet/", **HTMX)
    assert response.status_code == 404
    assert response["HX-Retarget"] == "#messages"
    assert "watch link is not valid any more" in text(response)
