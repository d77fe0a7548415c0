"""Settings, read from the environment (DESIGN §11). SQLite and a file broker by default."""
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url

from .env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
# The embedded default is for a laptop; every deployment sets its own SECRET_KEY.
SECRET_KEY = env_str("SECRET_KEY", "insecure-embedded-default-key")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "guardian",
    "django_htmx",
    "agentstate",
    "procurement",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # Bad input (oversized, too deep, NUL, lone surrogates, endless numbers) stops here: 400/413.
    "procurement.inputguard.InputGuardMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
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
            ],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env_str("SQLITE_PATH", str(VAR_DIR / "db.sqlite3")),
            # Writers take the lock at BEGIN, so a read-then-write never upgrades into "database is locked".
            "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20, "init_command": "PRAGMA journal_mode=WAL;"},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "guardian.backends.ObjectPermissionBackend",
]
ANONYMOUS_USER_NAME = None  # guardian: no anonymous user row
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hant", "繁體中文")]
TIME_ZONE = "Asia/Taipei"
USE_I18N = True
USE_TZ = True

LOCALE_PATHS = [BASE_DIR / "locale"]
# The input layer's body limit (procurement/limits.py); Django's own form parsing uses the same.
INPUT_MAX_BODY_BYTES = env_int("INPUT_MAX_BODY_BYTES", 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = INPUT_MAX_BODY_BYTES

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["procurement.inputguard.GuardedJSONParser"],
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
APPROVAL_TTL_SECONDS = env_int("APPROVAL_TTL_SECONDS", 3 * 24 * 3600)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": max(3600, AGENT_LEASE_SECONDS * 4)}
if CELERY_BROKER_URL.startswith("filesystem://"):
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
LLM_BASE_URL = env_str("LLM_BASE_URL", "")
LLM_MODEL = env_str("LLM_MODEL", "")
LLM_API_KEY = env_str("LLM_API_KEY", "")
LLM_TIMEOUT_SECONDS = float(env_str("LLM_TIMEOUT_SECONDS", "15"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}

CELERY_BEAT_SCHEDULE = {
    "recover": {"task": "procurement.tasks.recover", "schedule": float(RECOVERY_INTERVAL_SECONDS)},
    "memory-maintenance": {"task": "procurement.tasks.memory_maintenance", "schedule": 3600.0},
}

# Governed memory (DESIGN §8): retention per kind, counted from the last confirmation (None: keep).
MEMORY_RETENTION_DAYS = {"fact": 730, "preference": 730, "procedure": 1095, "term": 1095, "event": 365}
MEMORY_EXPIRED_PURGE_DAYS = env_int("MEMORY_EXPIRED_PURGE_DAYS", 30)
MEMORY_DEPARTED_PURGE_DAYS = env_int("MEMORY_DEPARTED_PURGE_DAYS", 90)
MEMORY_RECONFIRM_DAYS = env_int("MEMORY_RECONFIRM_DAYS", 180)
