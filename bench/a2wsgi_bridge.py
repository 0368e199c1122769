"""Django's WSGI handler under a2wsgi's WSGIMiddleware (a maintained WSGI-to-ASGI bridge),
for bench/load.py --servers to set beside bin/serve's bridge (scoresheet/asgi.py): only
the bench serves it, and only where a2wsgi is installed (``pip install a2wsgi``)."""

import os

from a2wsgi import WSGIMiddleware
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")

application = WSGIMiddleware(get_wsgi_application(), workers=int(os.environ.get("THREADS") or 2))
