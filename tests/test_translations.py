"""English, pt-PT and pt-BR are complete: every string the pages use is translated.

The catalogues are read with a small parser of their msgid/msgstr blocks; the
strings the code uses come from running makemessages on a copy of the project,
so a new {% translate %} or gettext call without a catalogue entry fails here.
"""

import ast
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse
from django.utils.translation.reloader import translation_file_changed

from .pages import browser, text

BASE = Path(settings.BASE_DIR)
LOCALES = ("pt_PT", "pt_BR")
# What `makemessages` skips in this project (README: how to update the catalogues).
IGNORED = [".venv", "staticfiles", "bench"]
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]|\{\{\s*\w+\s*\}\}")


def catalogue_path(locale, root=BASE):
    return root / "locale" / locale / "LC_MESSAGES" / "django.po"


def read_po(path):
    """The entries of a .po file: each a dict of its fields and its flags."""
    entries = []
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8").strip()):
        entry = {"flags": set(), "fields": {}}
        key = None
        for line in block.splitlines():
            if line.startswith("#,"):
                entry["flags"].update(flag.strip() for flag in line[2:].split(","))
            elif line.startswith("#"):
                continue
            elif line.startswith('"'):
                entry["fields"][key] += ast.literal_eval(line)
            else:
                key, value = line.split(" ", 1)
                entry["fields"][key] = ast.literal_eval(value)
        if entry["fields"]:
            entries.append(entry)
    return entries


def msgids(entries):
    return {(e["fields"].get("msgctxt"), e["fields"]["msgid"]) for e in entries} - {(None, "")}


def translations(entry):
    return [value for key, value in entry["fields"].items() if key.startswith("msgstr")]


# (a) Complete catalogues -------------------------------------------------------


@pytest.mark.parametrize("locale", LOCALES)
def test_catalogue_has_no_untranslated_or_fuzzy_entry(locale):
    entries = read_po(catalogue_path(locale))
    assert len(entries) > 100
    untranslated = [e["fields"]["msgid"] for e in entries[1:] if not all(translations(e))]
    fuzzy = [e["fields"]["msgid"] for e in entries if "fuzzy" in e["flags"]]
    assert untranslated == [], f"untranslated in {locale}: {untranslated}"
    assert fuzzy == [], f"fuzzy in {locale}: {fuzzy}"


@pytest.mark.parametrize("locale", LOCALES)
def test_catalogue_header_names_the_language_and_its_plurals(locale):
    header = read_po(catalogue_path(locale))[0]["fields"]["msgstr"]
    assert f"Language: {locale}\n" in header
    # Zero takes the plural in both: "0 jogos", not "0 jogo".
    assert "Plural-Forms: nplurals=2; plural=(n != 1);\n" in header


@pytest.mark.parametrize("locale", LOCALES)
def test_every_translation_keeps_the_placeholders_and_nos_eles(locale):
    wrong = []
    for entry in read_po(catalogue_path(locale))[1:]:
        fields = entry["fields"]
        wanted = set(PLACEHOLDER.findall(fields["msgid"] + fields.get("msgid_plural", "")))
        for value in translations(entry):
            if set(PLACEHOLDER.findall(value)) != wanted:
                wrong.append((fields["msgid"], value))
        for word in ("Nós", "Eles"):
            if word in fields["msgid"] and not all(word in value for value in translations(entry)):
                wrong.append((fields["msgid"], f"{word} must stay {word}"))
    assert wrong == []


@pytest.mark.parametrize("locale", LOCALES)
def test_msgfmt_accepts_the_catalogue(locale):
    result = subprocess.run(
        ["msgfmt", "--check", "-o", "/dev/null", str(catalogue_path(locale))],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


# (b) Every string the code uses is in the catalogues ---------------------------


def copy_sources(target):
    """The project as makemessages sees it, without its catalogues."""
    shutil.copytree(
        BASE,
        target,
        ignore=shutil.ignore_patterns(
            *IGNORED, ".*", "locale", "artifacts", "__pycache__", "*.sqlite3*", "*.png"
        ),
    )


def extracted(root):
    """The msgids makemessages finds in the project copied at ``root``."""
    (root / "locale").mkdir(exist_ok=True)
    with override_settings(LOCALE_PATHS=[root / "locale"]):
        # makemessages reads the tree under the working directory.
        cwd = Path.cwd()
        try:
            os.chdir(root)
            call_command(
                "makemessages",
                locale=["pt_PT"],
                ignore_patterns=IGNORED,
                no_obsolete=True,
                verbosity=0,
            )
        finally:
            os.chdir(cwd)
    return msgids(read_po(catalogue_path("pt_PT", root)))


@pytest.fixture(scope="module")
def project_copy(tmp_path_factory):
    if not shutil.which("xgettext"):
        pytest.fail("GNU gettext (xgettext, msgfmt) is needed: bin/test installs it.")
    root = tmp_path_factory.mktemp("project") / "src"
    copy_sources(root)
    return root


def missing_from_catalogues(used):
    return {
        locale: sorted(msgid for _, msgid in used - msgids(read_po(catalogue_path(locale))))
        for locale in LOCALES
    }


def test_every_string_the_templates_and_views_use_is_in_the_catalogues(project_copy):
    used = extracted(project_copy)
    assert len(used) > 100
    missing = missing_from_catalogues(used)
    assert missing == {locale: [] for locale in LOCALES}, (
        "run makemessages (README) and translate: " + repr(missing)
    )


def test_a_new_template_string_without_a_catalogue_entry_is_caught(project_copy):
    probe = project_copy / "templates" / "matches" / "zz_probe.html"
    probe.write_text('{% load i18n %}<p>{% translate "A probe no catalogue holds" %}</p>\n')
    try:
        missing = missing_from_catalogues(extracted(project_copy))
    finally:
        probe.unlink()
    assert missing == {locale: ["A probe no catalogue holds"] for locale in LOCALES}


# (c) The sheet in each language ------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def compiled_catalogues():
    """Compile a catalogue newer than its .mo (bin/test compiles them all first)."""
    stale = []
    for locale in LOCALES:
        po = catalogue_path(locale)
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
            stale.append(locale)
    if stale:
        call_command("compilemessages", locale=stale, ignore_patterns=IGNORED, verbosity=0)
        translation_file_changed(None, Path("django.mo"))  # drop the loaded catalogues


PHRASES = {
    # (The notes' list shows once there is a note; the form to note one is always there.)
    "en": ["End match", "Calculator", "Note a revoke", "Ana deals, Zé leads."],
    "pt-PT": ["Terminar partida", "Calculadora", "Anotar uma renúncia", "Ana dá as cartas"],
    "pt-BR": ["Encerrar partida", "Calculadora", "Anotar renúncia", "Ana dá as cartas"],
}
# The sheet's key labels in English: none may be left on a Portuguese page.
ENGLISH = [
    "Deal",
    "Calculator",
    "End match",
    "Revoke notes",
    "Note a revoke",
    "Invite the table",
    "Join link",
    "Watch link",
    "Renew the links",
    "Log out",
    "Language",
    "History",
    "Standings",
    "Whose cards",
    "Card points",
    "every trick",
    "games",
    "leads",
    "deals",
    "or less",
    "or more",
    "No deal entered yet",
    "Count",
    "Add the note",
    "free",
]


def visible_text(page):
    """The page's words: text between tags, and the attributes people read or hear."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    said = re.findall(r'(?:aria-label|title|alt|hx-confirm|data-copied)="([^"]*)"', page)
    words = re.sub(r"<[^>]+>", " ", page)
    # The switch names each language in itself.
    words = re.sub(r"\bEnglish\b", " ", words)
    return " ".join([words, *said])


def sheet_in(language, user, match):
    response = browser(user).get(reverse("match", args=[match.pk]), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return text(response)


@pytest.mark.parametrize("language", ["en", "pt-PT", "pt-BR"])
def test_the_sheet_speaks_the_browsers_language(language, match, ana):
    page = sheet_in(language, ana, match)
    words = visible_text(page)
    assert f'<html lang="{language.lower()}">' in page
    for phrase in PHRASES[language]:
        assert phrase in words
    assert "Nós" in words and "Eles" in words


@pytest.mark.parametrize("language", ["pt-PT", "pt-BR"])
def test_no_english_is_left_on_the_portuguese_sheet(language, match, ana, ze):
    match.record(ana, deal=1, side="a", games=0)
    match.record(ze, deal=1, side="b", games=0)  # a tie: the pending-extra reminder shows
    match.add_note(ze, side="b", text="Zé renunciou a copas.")
    words = visible_text(sheet_in(language, ana, match))
    assert "Nós" in words and "Eles" in words
    left = [phrase for phrase in ENGLISH if re.search(rf"\b{re.escape(phrase)}\b", words)]
    assert left == []


def test_pt_pt_and_pt_br_each_use_their_own_words(match, ana):
    portugal = visible_text(sheet_in("pt-PT", ana, match))
    brazil = visible_text(sheet_in("pt-BR", ana, match))
    invite = f"/matches/{match.pk}/invite/"
    assert "Ligação para entrar" in text(browser(ana).get(invite, HTTP_ACCEPT_LANGUAGE="pt-PT"))
    assert "Link de entrada" in text(browser(ana).get(invite, HTTP_ACCEPT_LANGUAGE="pt-BR"))
    assert "equipa" in portugal and "equipa" not in brazil
    assert "dupla" in brazil


# (d) The switch in the page ----------------------------------------------------


def test_the_language_switch_posts_to_set_language_and_changes_the_page(match, ana):
    client = browser(ana)
    sheet = reverse("match", args=[match.pk])
    page = text(client.get(sheet, HTTP_ACCEPT_LANGUAGE="pt-PT"))
    switch = r'<form method="post" action="([^"]+)">(?:(?!</form>).)*name="language"'
    form = re.search(switch, page, re.S)
    assert form and form.group(1) == reverse("set_language")
    for code in ("en", "pt-pt", "pt-br"):
        assert f'<option value="{code}"' in page
    assert re.search(r'<option value="pt-pt"[^>]*selected', page)

    response = client.post(
        reverse("set_language"),
        {"language": "pt-br", "next": sheet},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="pt-PT",
    )
    assert response.redirect_chain[-1][0] == sheet
    assert "Encerrar partida" in text(response)
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "pt-br"

    # The choice outlasts the browser's own preference.
    page = text(client.get(sheet, HTTP_ACCEPT_LANGUAGE="pt-PT"))
    assert "Encerrar partida" in page and re.search(r'<option value="pt-br"[^>]*selected', page)

    client.post(reverse("set_language"), {"language": "en", "next": sheet})
    assert "End match" in text(client.get(sheet, HTTP_ACCEPT_LANGUAGE="pt-BR"))
