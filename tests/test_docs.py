"""The docs stay true where that is cheap to check: every API path (and method) the docs
name is served, every environment variable docs/deploy.md names is read by the settings
or the scripts, and every relative link in the README and the docs leads to a file (and
heading) that exists. No server, no database."""

import re
from pathlib import Path

import pytest
from django.urls import Resolver404, resolve

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("**/*.md"))
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def read(path):
    return (ROOT / path).read_text(encoding="utf-8")


# API paths ---------------------------------------------------------------------------

# "/api/..." wherever it stands (after a host and port too, not inside "matches/api"), and
# "$API/..." in the shell examples, where API holds the address of /api.
API_PATH = re.compile(r"(?:(?<![A-Za-z_])/api|\$API)((?:/[A-Za-z0-9_{}-]*)*)")
METHOD_PATH = re.compile(rf"\b({'|'.join(METHODS)})\s+(?:/api|\$API)((?:/[A-Za-z0-9_{{}}-]*)*)")


def sample(path):
    """A path as the docs write it, with sample values for its {placeholders}."""

    def value(placeholder):
        name = placeholder.group(1)
        if "token" in name:
            return "sample-token_0"
        if name == "seat":
            return "b2"
        return "7"

    return re.sub(r"\{(\w+)\}", value, path)


def api_paths():
    """(doc, path) for every /api/ path the docs name, the bare prefix aside."""
    found = set()
    for doc in DOCS:
        for match in API_PATH.finditer(doc.read_text(encoding="utf-8")):
            path = "/api" + match.group(1)
            if path not in ("/api", "/api/"):
                found.add((doc.name, path))
    return sorted(found)


def api_calls():
    """(doc, method, path) for every "METHOD /api/..." and every curl example."""
    found = set()
    for doc in DOCS:
        for line in doc.read_text(encoding="utf-8").splitlines():
            for match in METHOD_PATH.finditer(line):
                found.add((doc.name, match.group(1), "/api" + match.group(2)))
            if re.search(r"\bcurl\b", line):
                url = API_PATH.search(line)
                if url:
                    method = re.search(r"-X\s+([A-Z]+)", line)
                    found.add(
                        (doc.name, method.group(1) if method else "GET", "/api" + url.group(1))
                    )
    return sorted(found)


def served(path):
    """The URL pattern serving ``path``: one of the API's own, not its JSON 404 for the rest."""
    try:
        match = resolve(sample(path))
    except Resolver404:
        return None
    return match if (match.url_name or "").startswith("api-") else None


def test_the_docs_name_api_paths():
    assert len(api_paths()) > 20
    assert len(api_calls()) > 20


@pytest.mark.parametrize(("doc", "path"), api_paths())
def test_every_api_path_the_docs_name_is_served(doc, path):
    assert served(path), f"docs/{doc} names {path}, which no API URL pattern serves"


@pytest.mark.parametrize(("doc", "method", "path"), api_calls())
def test_every_api_call_the_docs_show_takes_its_method(doc, method, path):
    match = served(path)
    assert match, f"docs/{doc} names {path}, which no API URL pattern serves"
    view = getattr(match.func, "cls", None)  # DRF's view class, for its handlers
    assert view is not None, path
    assert hasattr(view, method.lower()), f"docs/{doc}: {path} does not take {method}"


# Environment variables -----------------------------------------------------------------

# Where the environment is read: the settings, the two scripts, and the address finder
# bin/run --lan calls (LAN_ADDRESS).
PYTHON_READERS = (
    "scoresheet/settings.py",
    "scoresheet/lan.py",
    "scoresheet/serving.py",
    "scoresheet/asgi.py",
)
SHELL_READERS = ("bin/serve", "bin/run")
# Upper-case words in backticks that are values, not variables (LOG_LEVEL's levels), and
# PostgreSQL's commands.
NOT_VARIABLES = {"WARNING", "INFO", "ERROR", "CRITICAL", "LISTEN", "NOTIFY"}


def deploy_variables():
    text = read("docs/deploy.md")
    named = set(re.findall(r"`([A-Z][A-Z0-9_]{2,})`", text))
    named |= set(re.findall(r"(?<![\w$])([A-Z][A-Z0-9_]{2,})=", text))
    return sorted(named - NOT_VARIABLES)


def is_read(name):
    python = rf"""(?:env\w*|environ\.get|getenv)\(\s*["']{name}["']"""
    shell = rf"\$\{{?{name}\b"
    return any(re.search(python, read(path)) for path in PYTHON_READERS) or any(
        re.search(shell, read(path)) for path in SHELL_READERS
    )


def test_deploy_names_the_main_variables():
    named = deploy_variables()
    for name in ("DEBUG", "SECRET_KEY", "DATABASE_URL", "TRUSTED_PROXIES", "BIND", "THREADS"):
        assert name in named


@pytest.mark.parametrize("name", deploy_variables())
def test_every_variable_deploy_names_is_read(name):
    assert is_read(name), f"docs/deploy.md names {name}, which nothing reads from the environment"


# Where the threads' default is written, the figure is the one scoresheet/asgi.py uses.
THREADS_DEFAULT = {
    "bin/serve": r"THREADS\s*#\s*threads \(default (\d+)\)",
    "scoresheet/serving.py": r"THREADS\s+Django's threads in each worker \((\d+)\)",
    "docs/deploy.md": r"\| `THREADS` \| `(\d+)` \|",
}


@pytest.mark.parametrize("path", THREADS_DEFAULT)
def test_the_threads_default_is_the_same_wherever_it_is_written(path):
    used = re.search(r'environ\.get\("THREADS"\) or (\d+)', read("scoresheet/asgi.py")).group(1)
    written = re.search(THREADS_DEFAULT[path], read(path))
    assert written, f"{path} no longer says the default of THREADS where this test looks"
    assert written.group(1) == used, f"{path} says {written.group(1)} threads, the app uses {used}"


# Links ----------------------------------------------------------------------------------

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCED = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def prose(path):
    """A Markdown file without its code blocks (where "# ..." is a shell comment)."""
    return FENCED.sub("", path.read_text(encoding="utf-8"))


def anchors(path):
    """The anchors of a Markdown file's headings, as GitHub makes them."""
    headings = re.findall(r"^#+\s+(.+?)\s*$", prose(path), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def relative_links():
    found = []
    for page in [ROOT / "README.md", *DOCS]:
        for target in LINK.findall(prose(page)):
            if not re.match(r"[a-z]+:", target):
                found.append((page.relative_to(ROOT).as_posix(), target))
    return found


def test_the_readme_links_the_docs():
    linked = {target for page, target in relative_links() if page == "README.md"}
    assert {"docs/rules.md", "docs/api.md", "docs/deploy.md"} <= linked


@pytest.mark.parametrize(("source", "target"), relative_links())
def test_every_relative_link_leads_to_a_file(source, target):
    file, _, anchor = target.partition("#")
    path = (ROOT / source).parent / file if file else ROOT / source
    assert path.is_file(), f"{source} links {target}, which is no file"
    if anchor:
        assert anchor in anchors(path), f"{source} links {target}, which is no heading"
