"""SquareScores settings: one file, read from the environment.

Production is the default: DEBUG is off unless DEBUG=true says otherwise, and the app
refuses to start without a SECRET_KEY of its own (or the one bin/run made for this copy,
in .secret_key).
Production also sets ALLOWED_HOSTS and DATABASE_URL (an SQLite file beside the project
otherwise). DEBUG=true is for working on the code, with a development key.
"""

import os
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent

DEVELOPMENT_SECRET_KEY = "django-insecure-development-only-never-in-production"


def envbool(name, default):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}")


def envint(name, default):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}") from None


def envrate(name, default):
    """A rate such as 10/minute (per second, minute, hour or day); empty turns it off."""
    value = os.environ.get(name, default)
    if not value:
        return None
    count, _slash, period = value.partition("/")
    if not (count.isdigit() and period in ("second", "minute", "hour", "day")):
        raise ImproperlyConfigured(f"{name} must look like 10/minute, not {value!r}")
    return value


def envlist(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def envorigin(name):
    """An address such as http://192.168.1.20:8000: a scheme and a host, perhaps a port."""
    value = os.environ.get(name, "").strip().rstrip("/")
    if not value:
        return ""
    parts = urlsplit(value)
    try:
        parts.port  # noqa: B018 (reading it checks it)
    except ValueError:
        parts = None
    if not (
        parts
        and parts.scheme in ("http", "https")
        and parts.hostname
        and not (parts.path or parts.query or parts.fragment or parts.username)
    ):
        raise ImproperlyConfigured(f"{name} must look like http://192.168.1.20:8000, not {value!r}")
    return value


def kept_secret_key() -> str:
    """The key bin/run made for this copy (``.secret_key``, kept out of git), if any."""
    kept = Path(os.environ.get("SECRET_KEY_FILE") or BASE_DIR / ".secret_key")
    return kept.read_text().strip() if kept.is_file() else ""


DEBUG = envbool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY") or kept_secret_key()
if not SECRET_KEY and DEBUG:
    SECRET_KEY = DEVELOPMENT_SECRET_KEY
if not SECRET_KEY:
    raise ImproperlyConfigured(
        "Set SECRET_KEY to a long random string of this deployment's own (python3 -c "
        "'import secrets; print(secrets.token_urlsafe(50))'), or DEBUG=true to work on the "
        "code with the development key."
    )
if not DEBUG and SECRET_KEY == DEVELOPMENT_SECRET_KEY:
    raise ImproperlyConfigured("Set SECRET_KEY: the development key is refused when DEBUG is off.")

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])
# The address the phones at the table reach this server by (bin/run --lan sets it to
# the machine's Wi-Fi address): join, seat and watch links and their QR codes name it,
# whatever address the host's own browser used. It is a host and an origin of ours.
PUBLIC_URL = envorigin("PUBLIC_URL")
if PUBLIC_URL:
    _public_host = urlsplit(PUBLIC_URL).hostname
    ALLOWED_HOSTS.append(f"[{_public_host}]" if ":" in _public_host else _public_host)
    CSRF_TRUSTED_ORIGINS.append(PUBLIC_URL)
# How many proxies of our own stand in front (nginx, a load balancer). Anyone can
# write X-Forwarded-For and X-Forwarded-Proto, so they are believed only when this
# says a proxy is there to write them: 0, the default, means nobody.
TRUSTED_PROXIES = envint("TRUSTED_PROXIES", 0)
if TRUSTED_PROXIES < 0:
    raise ImproperlyConfigured(f"TRUSTED_PROXIES must be 0 or more, not {TRUSTED_PROXIES}")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    # Before tournaments, before matches: each one's seed_demo extends the next one's.
    "clubs",
    "tournaments",
    "matches",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "matches.middleware.content_security_policy",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "matches.middleware.ViewRefusals",
    "matches.limits.read_limit",
    "matches.middleware.private_answers",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, so it knows who is asking: a write repeated with its key gets its first answer.
    "matches.idempotency.Idempotency",
]

ROOT_URLCONF = "scoresheet.urls"
WSGI_APPLICATION = "scoresheet.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# SQLite file by default, so the app runs with nothing else installed;
# PostgreSQL (or anything dj-database-url reads) when DATABASE_URL is set.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=envint("CONN_MAX_AGE", 600),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # No statement runs, and no lock is waited on, longer than these (seconds; 0 for no
    # limit, for a long migration, say): a request stuck on the database is answered 503
    # ("try again") instead of holding its thread.
    waits = {
        "statement_timeout": envint("DATABASE_STATEMENT_TIMEOUT", 30),
        "lock_timeout": envint("DATABASE_LOCK_TIMEOUT", 10),
    }
    options = {"options": " ".join(f"-c {name}={limit * 1000}" for name, limit in waits.items())}
    if envbool("DATABASE_PREPARED", True):
        # Prepared statements (docs/decisions/0004-database-connections.md). A pooler that
        # hands a connection to another client between transactions (PgBouncer in
        # transaction mode, before 1.21) cannot keep them: DATABASE_PREPARED=false.
        options |= {"server_side_binding": True, "prepare_threshold": 1}
    DATABASES["default"]["OPTIONS"] = {**options, **DATABASES["default"].get("OPTIONS", {})}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Two phones writing at once take turns instead of failing "database is locked":
    # every transaction takes the write lock as it begins (a deferred one that has read
    # cannot wait for it), a writer waits up to 20 s for its turn, and readers never
    # hold a writer up (WAL, which stays set in the file).
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        **DATABASES["default"].get("OPTIONS", {}),
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Django wants a default cache; nothing here uses one, and its backends keep pickles.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
AUTH_USER_MODEL = "matches.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
# A refused token says so in the page (swapped in for htmx), not on a bare error page.
CSRF_FAILURE_VIEW = "matches.views.answers.csrf_failure"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("pt-pt", _("Português (Portugal)")),
    ("pt-br", _("Português (Brasil)")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["scoresheet.formats"]  # unambiguous dates in English
TIME_ZONE = os.environ.get("TIME_ZONE", "Europe/Lisbon")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Read at start-up: the test runner turns DEBUG off later, and whitenoise would then
# look for a collectstatic folder that development never makes.
WHITENOISE_AUTOREFRESH = DEBUG
STATIC_ROOT = os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

REST_FRAMEWORK = {
    # Token first: DRF takes the 401 challenge (WWW-Authenticate) from the first
    # class, and session authentication has none, which would turn 401 into 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "matches.api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "EXCEPTION_HANDLER": "matches.api.base.exception_handler",
    # The API speaks JSON; the pages post their own forms, and /api/docs/ is the
    # page for trying the API (the browsable API's inline script breaks under the CSP).
    "DEFAULT_PARSER_CLASSES": ["matches.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    # The client's address for the rate limits (matches/limits.py).
    "NUM_PROXIES": TRUSTED_PROXIES,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "SquareScores API",
    "DESCRIPTION": "The Sueca scoresheet: matches, deals, notes and nights.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Fields that share a name ("status": a match's, a seat request's) get enums of
    # their own names, so the schema says which is which.
    "ENUM_NAME_OVERRIDES": {
        "SideEnum": "matches.values.SIDES",
        "SeatEnum": "matches.values.SEATS",
        "MatchStatusEnum": "matches.api.fields.STATUS_CHOICES",
        "SeatRequestStatusEnum": "matches.summaries.SEAT_REQUEST_STATUSES",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "matches.api.schema.closed_bodies",
        "matches.api.schema.event_streams",
        "matches.api.schema.what_any_operation_may_answer",
        "matches.api.schema.links",
    ],
    # Swagger UI from the installed package, so /api/docs/ works offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
}

# Production hardening; all on whenever DEBUG is off, HSTS preload aside. HTTPS=false
# says the site is served over plain http on purpose (bin/run, at a table with no TLS):
# no redirect to https, no Secure cookies (the browser would not send them back), no HSTS.
HTTPS = envbool("HTTPS", not DEBUG)
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", HTTPS)
# The proxy says whether the request came in over HTTPS; without one, the header is
# the client's word and means nothing. The proxy must set it, never pass it on.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if TRUSTED_PROXIES else None
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 31536000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", HTTPS)
# Preloading bakes HTTPS-only for the whole domain into browsers, for months and past
# any header's undoing: the domain's owner opts in, so the deploy check's nudge is off.
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", False)
if SECURE_HSTS_PRELOAD and not SECURE_HSTS_INCLUDE_SUBDOMAINS:
    raise ImproperlyConfigured("SECURE_HSTS_PRELOAD needs SECURE_HSTS_INCLUDE_SUBDOMAINS.")
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 365  # a guest keeps their seat for a year

# How often a phone at the table asks whether the sheet changed (an unchanged
# sheet answers 304 from one query); the browser tests poll faster.
SHEET_POLL_MS = envint("SHEET_POLL_MS", 2000)
# How long an idle event stream goes between heartbeats: proxies close a silent one, and
# a phone that hears nothing for 2.5 heartbeats polls until it hears the stream again.
LIVE_HEARTBEAT_MS = envint("LIVE_HEARTBEAT_MS", 15000)
# Event streams open at once in one server process, at most, for one person (their
# phones and tabs) and for one address (a café's phones share one): 429 past either.
LIVE_STREAMS_PER_PERSON = envint("LIVE_STREAMS_PER_PERSON", 8)
LIVE_STREAMS_PER_ADDRESS = envint("LIVE_STREAMS_PER_ADDRESS", 256)

# Attempts per client address, on the pages and the API together (matches/limits.py).
# The counts are rows of a table of the app's own (LimitCount), shared by every process.
RATE_LIMITS = {
    "login": envrate("RATE_LIMIT_LOGIN", "10/minute"),
    "guest": envrate("RATE_LIMIT_GUEST", "30/hour"),
    # Tokens of links tried that open nothing: a stranger guessing.
    "guess": envrate("RATE_LIMIT_GUESS", "60/minute"),
    # Every read: a café's phones behind one address poll far below this.
    "reads": envrate("RATE_LIMIT_READS", "1200/minute"),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
