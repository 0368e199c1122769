"""Django's own ASGI handler, for bench/load.py --servers to set beside bin/serve's
(scoresheet/asgi.py): only the bench serves it."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")

application = get_asgi_application()
