"""Lighthouse (mobile, its default throttling) on the pages a table and a club open most:
the home page, a night, a match's sheet, a tournament's page and its projector, signed in
as the player who hosts them, on the production server (bin/serve, production settings,
PostgreSQL: bench/stack.py).

Lighthouse 12 runs on Node 20 and drives Debian's Chromium; it is no dependency of the
app's, so install it apart and say where it is:

    npm i -E --prefix /tmp/lighthouse lighthouse@12.2.3
    LIGHTHOUSE=/tmp/lighthouse/node_modules/.bin/lighthouse .venv/bin/python bench/lighthouse.py

It prints each page's performance, accessibility and best-practices scores (0 to 100), and
keeps each page's report in --reports DIR. With --check it runs no Lighthouse: it opens
each page, signed in, in the browser Lighthouse would drive, and says whether each answered
200 and logged no console error (the small form the suite runs:
tests/test_bench_lighthouse.py).
"""

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: the project's packages, bench's included

from bench import stack  # noqa: E402

CATEGORIES = ("performance", "accessibility", "best-practices")
CHROMIUM = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def parser():
    command_line = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    command_line.add_argument("--check", action="store_true", help="only ask for each page")
    command_line.add_argument("--reports", type=Path, help="keep each page's JSON report here")
    return command_line


def prepare():
    """Ana hosts a night whose rubber is five deals in with a note, and organises a
    tournament of four pairs on two tables with its first round in play, a rubber of it
    begun: {page name: path}, and her cookies {name: value}."""
    from django.conf import settings
    from django.test import Client

    from bench.data import SEATS
    from matches.models import Match, User
    from tournaments.models import Tournament

    ana = User.objects.create_user(username="lighthouse-ana", display_name="Ana")
    match = Match.objects.start(ana, SEATS, host_seat="a1", night_name="Sexta no café")
    for number, (side, games) in enumerate([("a", 1), ("b", 2), ("a", 2), ("b", 1)], 1):
        match.record(ana, deal=number, side=side, games=games)
    match.add_note(ana, side="b", text="Zé renunciou na 2.ª vaza")
    pairs = [["Ana", "Rui"], ["Zé", "Maria"], ["Inês", "Tiago"], ["Beatriz", "Duarte"]]
    tournament = Tournament.objects.open(
        ana, name="Torneio de Natal", pairs=pairs, tables=2, mocas_to_win=2
    )
    tournament.start_round(ana)
    rubber = tournament.progress().rounds[-1].series[0].current_match
    Match.objects.get(pk=rubber).record(ana, deal=1, side="a", games=2)
    browser = Client()
    browser.force_login(ana)
    pages = {
        "home": "/",
        "night": f"/nights/{match.night_id}/",
        "match": f"/matches/{match.pk}/",
        "tournament": f"/tournaments/{tournament.pk}/",
        "projector": f"/tournaments/watch/{tournament.watch_token}/",
    }
    cookies = {settings.SESSION_COOKIE_NAME: browser.cookies[settings.SESSION_COOKIE_NAME].value}
    return pages, cookies


@contextlib.contextmanager
def chromium(base, cookies):
    """Chromium with ``cookies`` in its jar, for Lighthouse to drive (its port). A Cookie
    header of Lighthouse's own (--extra-headers) is not sent by the pages' event streams,
    which would then be refused and log errors no player sees."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    from tests.servers import free_port

    port = free_port()
    profile = tempfile.mkdtemp(prefix="squarescores-chromium-")
    process = subprocess.Popen(
        [CHROMIUM, f"--remote-debugging-port={port}", f"--user-data-dir={profile}",
         *CHROMIUM_FLAGS, "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        with sync_playwright() as playwright:
            for _attempt in range(100):
                try:
                    browser = playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
                    break
                except PlaywrightError:  # not listening yet
                    time.sleep(0.1)
            else:
                raise RuntimeError(f"{CHROMIUM} did not listen on port {port} within 10 s")
            browser.contexts[0].add_cookies(
                [{"name": name, "value": value, "url": base} for name, value in cookies.items()]
            )
            yield port, browser.contexts[0]
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)


def lighthouse(url, port, report):
    """The page's scores by category, from a Lighthouse run of its own."""
    command = [
        os.environ.get("LIGHTHOUSE", "lighthouse"),
        url,
        "--quiet",
        f"--port={port}",
        "--output=json",
        f"--output-path={report}",
        f"--only-categories={','.join(CATEGORIES)}",
    ]
    subprocess.run(command, check=True, timeout=300)
    found = json.loads(Path(report).read_text())["categories"]
    return {name: round(100 * found[name]["score"]) for name in CATEGORIES}


def check(base, pages, cookies):
    """Each page opened in the browser Lighthouse would drive, signed in: its status and
    the errors its console logged in its first seconds (its event stream opened). 0 when
    every page answered 200 and logged none."""
    failed = False
    with chromium(base, cookies) as (_port, context):
        for name, path in pages.items():
            page = context.new_page()
            errors = []
            page.on(
                "console",
                lambda message, errors=errors: (
                    message.type == "error" and errors.append(message.text)
                ),
            )
            status = page.goto(f"{base}{path}").status
            page.wait_for_timeout(2000)
            page.close()
            print(f"{name:<11} {status}  console errors: {len(errors)}  {base}{path}")
            for error in errors:
                print(f"    {error}")
            failed = failed or status != 200 or bool(errors)
    return 1 if failed else 0


def main(argv=None):
    args = parser().parse_args(argv)
    with stack.database() as database:
        pages, cookies = prepare()
        with stack.gunicorn(database, threads=2) as server:
            base = f"http://127.0.0.1:{server.port}"
            if args.check:
                return check(base, pages, cookies)
            reports = args.reports or Path(tempfile.mkdtemp(prefix="squarescores-lighthouse-"))
            reports.mkdir(parents=True, exist_ok=True)
            print(f"{'page':<11} {'perf':>5} {'a11y':>5} {'best':>5}  (reports in {reports})")
            with chromium(base, cookies) as (port, _context):
                for name, path in pages.items():
                    scores = lighthouse(f"{base}{path}", port, reports / f"{name}.json")
                    print(f"{name:<11} " + " ".join(f"{scores[c]:>5}" for c in CATEGORIES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
