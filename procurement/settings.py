"""Settings, read from the environment (DESIGN §11). SQLite and a file broker by default."""
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from procurement.infra.env import env_bool, env_int, env_json, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
# Every deployment sets its own SECRET_KEY: the WSGI/ASGI application refuses to start without
# it unless DEBUG is on (procurement/wsgi.py). Tests and management commands use the embedded one.
SECRET_KEY_FROM_ENV = env_str("SECRET_KEY", "")
SECRET_KEY = SECRET_KEY_FROM_ENV or "insecure-embedded-default-key"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "drf_spectacular",
    "guardian",
    "django_htmx",
    "procurement.people.borrowed_words.AxesConfig",  # django-axes, named in the reader's language
    "agentstate",
    "procurement",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files, compressed and with hashed names, straight from gunicorn (no runserver --insecure).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # The request's W3C trace (procurement.infra.telemetry): a task it starts is born in it.
    "procurement.infra.telemetry.TraceMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # Bad input (oversized, too deep, NUL, lone surrogates, endless numbers) stops here: 400/413.
    "procurement.infra.inputguard.InputGuardMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Today's delegations, read once per request for the header, "waiting for" and the inbox.
    "procurement.selectors.delegations.ReadOncePerRequest",
    "procurement.people.language.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A refusal no view answered itself: 4xx with its words in the reader's language (procurement.words).
    "procurement.pages.errors.DomainErrorMiddleware",
    # Last: counts failed sign-ins and answers a locked-out account (AXES_* below).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "procurement.urls"
WSGI_APPLICATION = "procurement.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "procurement.pages.context.nav",
                "django.template.context_processors.csp",
            ],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("CONN_MAX_AGE", 60),
                                                  conn_health_checks=True)}
    # The web server (gunicorn.conf.py) turns on psycopg's pool, sized to its threads, so the
    # database sees at most workers x threads connections. Celery's forked workers keep one each.
    if env_bool("DATABASE_POOL", False):
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1, "max_size": env_int("DATABASE_POOL_MAX_SIZE", 4),
            "timeout": env_int("DATABASE_POOL_TIMEOUT", 10), "max_idle": 300}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env_str("SQLITE_PATH", str(VAR_DIR / "db.sqlite3")),
            # Writers take the lock at BEGIN, so a read-then-write never upgrades into "database is locked".
            "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20, "init_command": "PRAGMA journal_mode=WAL;"},
        }
    }
    # SQLite ignores the INCLUDE columns of the covering indexes PostgreSQL uses: harmless, not worth a warning.
    # It has no NULLS NOT DISTINCT either (models.W047): one tolerance per scope is then checked by the model's
    # validation, which the admin runs before it saves.
    SILENCED_SYSTEM_CHECKS = ["models.W040", "models.W047"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTHENTICATION_BACKENDS = [
    "procurement.people.signin.AxesBackend",
    "django.contrib.auth.backends.ModelBackend",
    "guardian.backends.ObjectPermissionBackend",
    "procurement.people.oidc.DirectoryBackend",  # answers only when OIDC is configured (below)
]
ANONYMOUS_USER_NAME = None  # guardian: no anonymous user row
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"

# Sign-in with the company directory (OIDC), beside local accounts: off unless the client id and
# the provider's endpoints are set. OIDC_GROUP_MAP maps directory groups to department roles, e.g.
# {"eng-managers": {"department": "ENG", "role": "manager", "approval_limit": "100000"}}.
OIDC_RP_CLIENT_ID = env_str("OIDC_RP_CLIENT_ID")
OIDC_RP_CLIENT_SECRET = env_str("OIDC_RP_CLIENT_SECRET")
OIDC_OP_ISSUER = env_str("OIDC_OP_ISSUER")
OIDC_OP_AUTHORIZATION_ENDPOINT = env_str("OIDC_OP_AUTHORIZATION_ENDPOINT")
OIDC_OP_TOKEN_ENDPOINT = env_str("OIDC_OP_TOKEN_ENDPOINT")
OIDC_OP_JWKS_ENDPOINT = env_str("OIDC_OP_JWKS_ENDPOINT")
OIDC_OP_USER_ENDPOINT = env_str("OIDC_OP_USER_ENDPOINT")  # optional: the id token's claims suffice
OIDC_RP_SIGN_ALGO = env_str("OIDC_RP_SIGN_ALGO", "RS256")
OIDC_RP_SCOPES = env_str("OIDC_RP_SCOPES", "openid email profile groups")
OIDC_GROUPS_CLAIM = env_str("OIDC_GROUPS_CLAIM", "groups")
OIDC_GROUP_MAP = env_json("OIDC_GROUP_MAP", {})
OIDC_TIMEOUT = env_int("OIDC_TIMEOUT", 10)
OIDC_AUTHENTICATE_CLASS = "procurement.people.oidc.SignInView"
OIDC_CALLBACK_CLASS = "procurement.people.oidc.CallbackView"
LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?directory=refused"
LOGOUT_REDIRECT_URL = "/accounts/login/"

LANGUAGES = [("en", "English"), ("zh-hant", "繁體中文")]
# The language of whoever has not chosen one: mail to an approver who has never signed in, a page
# asked for without Accept-Language. An office that reads Traditional Chinese sets zh-hant.
LANGUAGE_CODE = env_str("LANGUAGE_CODE", "en").strip().lower() or "en"
if LANGUAGE_CODE not in dict(LANGUAGES):
    raise ImproperlyConfigured(f"LANGUAGE_CODE must be one of {', '.join(dict(LANGUAGES))}, not {LANGUAGE_CODE!r}.")
TIME_ZONE = "Asia/Taipei"
USE_I18N = True
USE_TZ = True

LOCALE_PATHS = [BASE_DIR / "locale"]
# The input layer's body limit (procurement/limits.py); Django's own form parsing uses the same.
INPUT_MAX_BODY_BYTES = env_int("INPUT_MAX_BODY_BYTES", 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = INPUT_MAX_BODY_BYTES

MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
# Quote sheets (procurement.quotesheet): the upload route's own body limit, a setting, checked from
# Content-Length before anything is read; the other routes keep INPUT_MAX_BODY_BYTES.
QUOTE_SHEET_MAX_BYTES = env_int("QUOTE_SHEET_MAX_BYTES", 10 * 1024 * 1024)
QUOTE_SHEET_MAX_ROWS = env_int("QUOTE_SHEET_MAX_ROWS", 500)
# A sheet's price is "far from the known quotes" when it differs from the catalogue's median
# unit price for that item by more than this many percent (either way).
QUOTE_SHEET_PRICE_TOLERANCE_PERCENT = env_int("QUOTE_SHEET_PRICE_TOLERANCE_PERCENT", 30)

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"
# Hashed, compressed names once collectstatic has run (the image does, with STATIC_MANIFEST=true);
# without a manifest (tests, make run) whitenoise serves the plain names from static/.
STATIC_MANIFEST = env_bool("STATIC_MANIFEST", (STATIC_ROOT / "staticfiles.json").exists())
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage" if STATIC_MANIFEST
                    else "django.contrib.staticfiles.storage.StaticFilesStorage"},
    # Files a task read (quote sheets), stored once by SHA-256 (agentstate.artifacts). Never served
    # from MEDIA_URL: the download view checks who may see the task. For S3-compatible storage set
    # ARTIFACT_STORAGE_BACKEND (e.g. storages.backends.s3.S3Storage) and its OPTIONS here.
    "artifacts": {"BACKEND": env_str("ARTIFACT_STORAGE_BACKEND", "django.core.files.storage.FileSystemStorage"),
                  "OPTIONS": {"location": str(MEDIA_ROOT / "artifacts")}},
}
WHITENOISE_USE_FINDERS = not STATIC_MANIFEST
STATIC_ROOT.mkdir(parents=True, exist_ok=True)

REST_FRAMEWORK = {
    # Token first: its `WWW-Authenticate` header is what turns "no credentials" into 401, not 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "procurement.api.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Chat turns (which may call a paid model) and writes are rate-limited per user; reads are not.
    "DEFAULT_THROTTLE_CLASSES": ["procurement.api.throttles.ChatThrottle", "procurement.api.throttles.WriteThrottle",
                                 "procurement.api.throttles.TokenThrottle"],
    "DEFAULT_THROTTLE_RATES": {"chat": env_str("THROTTLE_CHAT", "30/min"), "write": env_str("THROTTLE_WRITE", "120/min"),
                               "token": env_str("THROTTLE_TOKEN", "20/min")},
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["procurement.infra.inputguard.GuardedJSONParser"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "procurement.api.errors.exception_handler",
    "COERCE_DECIMAL_TO_STRING": True,
}
SPECTACULAR_SETTINGS = {"TITLE": "Procurement agent API", "VERSION": "1.0.0"}

# Celery: at-least-once delivery. Messages are hints; the database and the recovery pass
# guarantee progress (DESIGN §5).
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
AGENT_LEASE_SECONDS = env_int("AGENT_LEASE_SECONDS", 60)
# Steps one claim may run in a row (procurement.tasks.advance): the next step of a task that is still
# runnable runs at once under the same lease instead of waiting behind every other task's message.
# DESIGN §5 says advance() runs one step, so that is the default; more is an operator's choice
# (bench/RESULTS.md measured 8).
AGENT_STEPS_PER_CLAIM = env_int("AGENT_STEPS_PER_CLAIM", 1)
# A step failing this many times in a row (with back-off between tries) sends its task to review.
AGENT_MAX_ATTEMPTS = env_int("AGENT_MAX_ATTEMPTS", 5)
AGENT_RETRY_BACKOFF_SECONDS = env_int("AGENT_RETRY_BACKOFF_SECONDS", 2)
APPROVAL_TTL_SECONDS = env_int("APPROVAL_TTL_SECONDS", 3 * 24 * 3600)
# Who decides an invoice exception no approval-policy rule routes (a variance above every limit, a
# department the policy does not name), so it never dead-ends: this username (the accounts-payable
# lead); empty, the administrators. Never the requester; not the person who entered the invoice
# while someone else can.
INVOICE_EXCEPTION_FALLBACK = env_str("INVOICE_EXCEPTION_FALLBACK", "")
# Budget holds (DESIGN §7, procurement/budget.py): "soft" holds at submission and reserves at
# approval; "cap" reserves at submission, at most BUDGET_HOLD_CAP (NT$, tax-inclusive) of
# unapproved requests per requester.
BUDGET_HOLD = env_str("BUDGET_HOLD", "soft")
if BUDGET_HOLD not in ("soft", "cap"):
    raise ImproperlyConfigured(f"BUDGET_HOLD must be soft or cap, not {BUDGET_HOLD!r}.")
BUDGET_HOLD_CAP = env_int("BUDGET_HOLD_CAP", 5_000_000)
# Approvers are reminded once when this little time is left before an approval expires.
APPROVAL_REMINDER_SECONDS = env_int("APPROVAL_REMINDER_SECONDS", 24 * 3600)
# An approval step's mail to one person: after one is sent, newer versions within this many seconds
# are held and coalesced, and only the latest is sent (procurement.infra.outbox).
MAIL_COALESCE_SECONDS = env_int("MAIL_COALESCE_SECONDS", 120)
CELERY_TASK_ACKS_LATE = True
# Celery's Django fixup closes the database connection before and after every task unless this is
# set, so each step paid for a new PostgreSQL backend and prepared the engine's statements again.
# With it the fixup recycles the connection once every this many tasks, and procurement.celery
# closes it at a task's boundary only when Django would (CONN_MAX_AGE, an error, a failed health check).
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", 1000)
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": max(3600, AGENT_LEASE_SECONDS * 4)}
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT = "procurement.infra.broker:Transport"  # whole messages only (procurement/broker.py)
    _broker_dir = VAR_DIR / "broker"
    for _sub in ("queue", "processed", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS |= {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
        "polling_interval": 0.1,  # the default 1 s would add a second to every agent step
    }
CELERY_TASK_IGNORE_RESULT = True
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
RECOVERY_INTERVAL_SECONDS = env_int("RECOVERY_INTERVAL_SECONDS", 30)
# A runnable task nobody has touched for this long is handed back to its kind by recovery.
RECOVERY_STALE_SECONDS = env_int("RECOVERY_STALE_SECONDS", 60)

ERP_URL = env_str("ERP_URL", "http://127.0.0.1:8765")

# The buyer on purchase orders and invoices (DESIGN §10, §16): its 統一編號 is checked at start-up.
COMPANY_NAME = env_str("COMPANY_NAME", "示範科技股份有限公司")
COMPANY_TAX_ID = env_str("COMPANY_TAX_ID", "24549210")
COMPANY_SHIP_TO = env_str("COMPANY_SHIP_TO", "新竹市東區光復路二段 101 號 3 樓 收貨處")
# The contact and the payment terms in Chinese and in English (…_EN, for the English PDF). A
# deployment that sets only the Chinese one gets it in both; the English demo words go with the
# Chinese demo words only.
_DEMO_CONTACT = "採購部 03-5712121 purchasing@example.com"
_DEMO_TERMS = "月結 30 天（驗收及收到發票後）"
COMPANY_CONTACT = env_str("COMPANY_CONTACT", _DEMO_CONTACT)
COMPANY_CONTACT_EN = env_str("COMPANY_CONTACT_EN", "Purchasing Dept. 03-5712121 purchasing@example.com"
                             if COMPANY_CONTACT == _DEMO_CONTACT else COMPANY_CONTACT)
PAYMENT_TERMS = env_str("PAYMENT_TERMS", _DEMO_TERMS)
PAYMENT_TERMS_EN = env_str("PAYMENT_TERMS_EN", "Net 30 days after acceptance and receipt of the invoice"
                           if PAYMENT_TERMS == _DEMO_TERMS else PAYMENT_TERMS)
ERP_TIMEOUT_SECONDS = float(env_str("ERP_TIMEOUT_SECONDS", "5"))
EMAIL_URL = env_str("EMAIL_URL", "")
if EMAIL_URL.startswith(("smtp://", "smtps://")):
    _email = urlsplit(EMAIL_URL)
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.smtp.EmailBackend", "OPTIONS": {
        "host": _email.hostname or "localhost", "port": _email.port or 25, "username": _email.username or "",
        "password": _email.password or "", "use_tls": EMAIL_URL.startswith("smtps://")}}}
else:
    # Without a mail server, mail is written to files the demo and tests can read.
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.filebased.EmailBackend",
                           "OPTIONS": {"file_path": env_str("EMAIL_FILE_PATH", str(VAR_DIR / "mail"))}}}
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "procurement-agent@example.com")
# Links in mail and notices are absolute: where people reach this site.
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
# The recovery pass turns events this recent into notices if nothing did yet (never older ones,
# so a new deployment does not mail about last year's requests).
NOTICE_LOOKBACK_SECONDS = env_int("NOTICE_LOOKBACK_SECONDS", 24 * 3600)
LLM_BASE_URL = env_str("LLM_BASE_URL", "")
LLM_MODEL = env_str("LLM_MODEL", "")
LLM_API_KEY = env_str("LLM_API_KEY", "")
LLM_TIMEOUT_SECONDS = float(env_str("LLM_TIMEOUT_SECONDS", "15"))

# JSON lines with the trace id of the work each record belongs to (LOG_FORMAT=text for plain lines).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "procurement.infra.telemetry.JsonLines"}},
    "handlers": {"console": {"class": "logging.StreamHandler",
                             **({"formatter": "json"} if env_str("LOG_FORMAT", "json") == "json" else {})}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
    # django-axes' start-up banner at INFO would be the only output of every manage.py command
    # (check --deploy included); its lockouts are logged by other loggers and stay.
    "loggers": {"axes.apps": {"level": "WARNING"}},
}

CELERY_BEAT_SCHEDULE = {
    "recover": {"task": "procurement.tasks.recover", "schedule": float(RECOVERY_INTERVAL_SECONDS)},
    "memory-maintenance": {"task": "procurement.tasks.memory_maintenance", "schedule": 3600.0},
    "prune-state": {"task": "procurement.tasks.prune_state", "schedule": 24 * 3600.0},
    "escalate-approvals": {"task": "procurement.tasks.escalate_approvals",
                           "schedule": float(env_int("ESCALATION_INTERVAL_SECONDS", 300))},
}

# Retention of State and Session (agentstate.retention; `manage.py prune_state --dry-run` shows what
# would go). Receipts, approvals and task events are never deleted.
CHECKPOINT_KEEP_LATEST = env_int("CHECKPOINT_KEEP_LATEST", 5)
CHECKPOINT_KEEP_DAYS_AFTER_END = env_int("CHECKPOINT_KEEP_DAYS_AFTER_END", 30)
SESSION_IDLE_MINUTES = env_int("SESSION_IDLE_MINUTES", 30)
SESSION_EXPIRE_DAYS = env_int("SESSION_EXPIRE_DAYS", 90)
SESSION_COMPACT_AFTER_TURNS = env_int("SESSION_COMPACT_AFTER_TURNS", 60)
SESSION_KEEP_RECENT_TURNS = env_int("SESSION_KEEP_RECENT_TURNS", 20)
TURN_RETENTION_DAYS = env_int("TURN_RETENTION_DAYS", 180)

# Governed memory (DESIGN §8): retention per kind, counted from the last confirmation (None: keep).
MEMORY_RETENTION_DAYS = {"fact": 730, "preference": 730, "procedure": 1095, "term": 1095, "event": 365}
MEMORY_EXPIRED_PURGE_DAYS = env_int("MEMORY_EXPIRED_PURGE_DAYS", 30)
MEMORY_DEPARTED_PURGE_DAYS = env_int("MEMORY_DEPARTED_PURGE_DAYS", 90)
MEMORY_RECONFIRM_DAYS = env_int("MEMORY_RECONFIRM_DAYS", 180)

# -- Deployment (DESIGN §15) --------------------------------------------------------------------
# HTTPS: the site is served over TLS, directly or behind a proxy that says so in the header named
# by SECURE_PROXY_SSL_HEADER (e.g. X-Forwarded-Proto). Then cookies are Secure, plain HTTP is
# redirected and browsers are told to remember HTTPS (HSTS) for SECURE_HSTS_SECONDS.
HTTPS = env_bool("HTTPS", False)
_proxy_header = env_str("SECURE_PROXY_SSL_HEADER", "")
if _proxy_header:
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + _proxy_header.upper().replace("-", "_"), "https")
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = HTTPS
SESSION_COOKIE_HTTPONLY = True
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # the container's own health probe speaks plain HTTP
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy: scripts and styles only from this site or with the response's nonce;
# htmx runs without inline styles (static/js/app.js turns its indicator styles off); templates carry
# no style="" attributes (a test keeps it so).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    # No inline style of any kind: every style="" attribute lives in static/css/app.css as a class.
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "object-src": [CSP.NONE],
}

# Sign-in: AXES_FAILURE_LIMIT wrong passwords for one user name from one address lock that pair,
# and AXES_ADDRESS_FAILURE_LIMIT from one address (any names) lock the address, for
# AXES_COOLOFF_MINUTES, on the login page, the admin's and the API's token endpoint alike
# (procurement.people.signin.PairAndAddressHandler). The owner's right password from elsewhere still works.
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 30)
AXES_ADDRESS_FAILURE_LIMIT = env_int("AXES_ADDRESS_FAILURE_LIMIT", 100)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15))
# In this order: the handler reads the pair's count first, the address's second.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_HANDLER = "procurement.people.signin.PairAndAddressHandler"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_LOCKOUT_CALLABLE = "procurement.people.signin.lockout_response"
# How many proxies of ours stand in front (compose: 1, the TLS proxy); the client's address is read
# from X-Forwarded-For accordingly (procurement.people.signin.client_address), else every user would share
# the proxy's address.
AXES_IPWARE_PROXY_COUNT = env_int("AXES_PROXY_COUNT", 0)
AXES_CLIENT_IP_CALLABLE = "procurement.people.signin.client_address"

# API tokens (`POST /api/v1/auth/token/`, `manage.py drf_create_token`) stop working this long
# after they were made; `DELETE /api/v1/auth/token/` and offboarding revoke them at once.
API_TOKEN_TTL_HOURS = env_int("API_TOKEN_TTL_HOURS", 24 * 30)
# API tokens (django-rest-knox): one per client, each named, expiring and revocable; sent as
# `Authorization: Token <key>` (DESIGN §10). Only a digest is kept.
KNOX_TOKEN_MODEL = "procurement.ApiToken"
REST_KNOX = {"TOKEN_TTL": timedelta(hours=API_TOKEN_TTL_HOURS), "AUTH_HEADER_PREFIX": "Token",
             "TOKEN_MODEL": KNOX_TOKEN_MODEL, "AUTO_REFRESH": False}

# Throttle counters live in the cache: Redis when CACHE_URL names one, so every web worker counts together.
CACHE_URL = env_str("CACHE_URL", "")
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
          if CACHE_URL else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
