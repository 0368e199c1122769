"""The app as people run it (``bin/run``): the production server and settings, whatever
the table does; and a developer's ``bin/run --debug`` answering refusals the same way."""

import subprocess
import urllib.error
import urllib.request

import pytest

from .conftest import ROOT
from .nights import play
from .pages import HTMX, browser, text


def test_running_the_app_leaves_nothing_for_git_to_track():
    ignored = subprocess.run(
        ["git", "check-ignore", "db.sqlite3", "db.sqlite3-shm", "db.sqlite3-wal", ".secret_key"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert ignored.stdout.split() == [
        "db.sqlite3",
        "db.sqlite3-shm",
        "db.sqlite3-wal",
        ".secret_key",
    ]


def test_bin_run_starts_without_noise_and_serves_production_pages(app_server):
    assert "already exists" not in app_server.output()
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{app_server.url}/matches/999999/", timeout=10)
    assert refused.value.code == 404
    page = refused.value.read().decode()
    assert "There is nothing here" in page
    assert "URLconf" not in page  # no debug page
    home = urllib.request.urlopen(f"{app_server.url}/", timeout=10).read().decode()
    assert "django-htmx.js" not in home


def test_the_suites_bin_run_names_its_connections(app_server, django_db_blocker):
    """Its sessions are found by name once it stops (``servers.until_closed``), before
    the suite drops its database: they must carry it."""
    from django.db import connection

    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(f"{app_server.url}/matches/999999/", timeout=10)  # a query
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = 'suite-bin-run'"
        )
        assert cursor.fetchone()[0] >= 1


def test_with_debug_on_no_script_puts_a_refusal_in_place_of_the_page(settings, db):
    settings.DEBUG = True
    page = text(browser().get("/"))
    assert "django-htmx.js" not in page
    assert "htmx-2.min.js" in page


def test_with_debug_on_a_404_in_a_view_is_the_sites_own_refusal(settings, match, olga):
    settings.DEBUG = True
    response = browser(olga).get(f"/matches/{match.pk}/", **HTMX)
    assert response.status_code == 404
    assert response["HX-Retarget"] == "#messages"
    assert "not yours to see" in text(response)


def test_a_finished_rubber_offers_no_calculator_and_no_revoke_note(match, ana, rui):
    # The tools stay on the page, for an undo to bring back, and app.css hides them
    # beside a sheet that is not in play (tests/test_browser_calculator.py sees it).
    play(match, ana, ("a", 4, "sweep"))
    page = text(browser(rui).get(f"/matches/{match.pk}/"))
    assert '<section id="sheet" class="sheet"' in page
    assert '<aside class="tools">' in page
    css = (ROOT / "static" / "app.css").read_text()
    assert ".sheet:not(.in-play) ~ .tools { display: none; }" in css
