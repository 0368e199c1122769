"""The app as a phone installs and keeps it: its web manifest and its service worker.

Both are static files (``static/manifest.webmanifest``, ``static/sw.js``) answered from
the site's root: a service worker only looks after the pages under the folder it is
served from, so ``/sw.js`` looks after every page. The manifest's icons become their
static URLs (hashed in production). The page's side of it is ``static/offline.js``.

Neither is anyone's own, so they say ``public``: the browser asks again each time
(``no-cache``) and gets a 304 while the file is unchanged. The manifest speaks the
active language (LocaleMiddleware's pick, from the language cookie or the browser): its
``description`` and ``lang`` follow it, its names stay "SquareScores". So it varies on
``Accept-Language`` and ``Cookie``, and each language has its own ETag.
"""

import hashlib
import json

from django.contrib.staticfiles import finders
from django.http import Http404, HttpResponse
from django.templatetags.static import static
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.translation import get_language, gettext, gettext_noop, to_locale
from django.views.decorators.http import require_GET

# The home page's own words for the app (templates/matches/home.html), one translation.
DESCRIPTION = gettext_noop(
    "The scoresheet for Sueca: tell it how many games each side won after every deal, "
    "and it keeps the tally to 4 and draws the Nós/Eles crosses."
)


def _read(name) -> bytes:
    path = finders.find(name)
    if not path:
        raise Http404
    with open(path, "rb") as file:
        return file.read()


def _answer(request, body, content_type, *, vary=()):
    tag = f'"{hashlib.sha256(body).hexdigest()[:32]}"'
    response = HttpResponse(body, content_type=content_type)
    response["ETag"] = tag
    response["Cache-Control"] = "public, no-cache"
    patch_vary_headers(response, vary)  # before the 304, which keeps it
    return get_conditional_response(request, etag=tag, response=response)


@require_GET
def manifest(request):
    kept = json.loads(_read("manifest.webmanifest"))
    for icon in kept.get("icons", []):
        icon["src"] = static(icon["src"])
    kept["lang"] = to_locale(get_language()).replace("_", "-")  # pt_PT -> pt-PT
    kept["dir"] = "ltr"
    kept["description"] = gettext(DESCRIPTION)
    body = json.dumps(kept, ensure_ascii=False, indent=1).encode()
    return _answer(request, body, "application/manifest+json", vary=("Accept-Language", "Cookie"))


@require_GET
def service_worker(request):
    response = _answer(request, _read("sw.js"), "application/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    return response
