"""The installed app's manifest speaks the phone's language: its description and lang
follow the active language (the browser's, or the one picked at the foot of a page),
its names stay "SquareScores", and a cache never hands one language's copy to another."""

import pytest
from django.conf import settings
from django.test import Client

DESCRIPTIONS = {
    "en": (
        "The scoresheet for Sueca: tell it how many games each side won after every deal, "
        "and it keeps the tally to 4 and draws the Nós/Eles crosses."
    ),
    "pt-PT": (
        "A folha de pontos da sueca: depois de cada mão, diga quantos jogos ganhou cada "
        "equipa, e ela faz as contas até 4 e desenha as cruzes de Nós/Eles."
    ),
    "pt-BR": (
        "A folha de pontos da sueca: depois de cada mão, diga quantos jogos cada dupla "
        "ganhou, e ela marca o placar até 4 e desenha as cruzes de Nós/Eles."
    ),
}


def vary(response):
    return {part.strip().lower() for part in response.get("Vary", "").split(",")}


@pytest.mark.django_db
@pytest.mark.parametrize("language", DESCRIPTIONS)
def test_the_manifest_is_in_the_browsers_language(language):
    manifest = Client().get("/manifest.webmanifest", HTTP_ACCEPT_LANGUAGE=language)
    assert manifest.status_code == 200
    kept = manifest.json()
    assert kept["lang"] == language
    assert kept["description"] == DESCRIPTIONS[language]
    assert kept["name"] == kept["short_name"] == "SquareScores"
    assert {"accept-language", "cookie"} <= vary(manifest)


@pytest.mark.django_db
def test_the_language_picked_on_the_site_wins_over_the_browsers(rui):
    client = Client()
    client.force_login(rui)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "pt-br"
    kept = client.get("/manifest.webmanifest", HTTP_ACCEPT_LANGUAGE="en").json()
    assert (kept["lang"], kept["description"]) == ("pt-BR", DESCRIPTIONS["pt-BR"])
    assert kept["name"] == "SquareScores"


@pytest.mark.django_db
def test_each_language_has_its_own_etag_and_304():
    client = Client()
    english = client.get("/manifest.webmanifest", HTTP_ACCEPT_LANGUAGE="en")
    portuguese = client.get("/manifest.webmanifest", HTTP_ACCEPT_LANGUAGE="pt-PT")
    assert english["ETag"] != portuguese["ETag"]
    assert "public" in english["Cache-Control"]

    again = client.get(
        "/manifest.webmanifest", HTTP_ACCEPT_LANGUAGE="pt-PT", HTTP_IF_NONE_MATCH=portuguese["ETag"]
    )
    assert again.status_code == 304
    assert again["ETag"] == portuguese["ETag"]
    assert {"accept-language", "cookie"} <= vary(again)

    # A phone that changed language with the other copy in hand gets the new one.
    changed = client.get(
        "/manifest.webmanifest", HTTP_ACCEPT_LANGUAGE="en", HTTP_IF_NONE_MATCH=portuguese["ETag"]
    )
    assert changed.status_code == 200
    assert changed.json()["description"] == DESCRIPTIONS["en"]
