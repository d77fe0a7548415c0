"""gunicorn's settings for the web process (read from the working directory by gunicorn).

Workers x threads bounds both the requests served at once and the database connections:
each worker holds a psycopg pool of at most `threads` connections (procurement/settings.py)."""
import os

bind = os.environ.get("BIND", f"0.0.0.0:{os.environ.get('PORT', '8000')}")
workers = int(os.environ.get("WEB_WORKERS", "2"))
threads = int(os.environ.get("WEB_THREADS", "4"))
worker_class = "gthread"
timeout = int(os.environ.get("WEB_TIMEOUT", "60"))  # a chat turn may wait for a model (LLM_TIMEOUT_SECONDS)
graceful_timeout = 30
keepalive = 5
max_requests = 2000
max_requests_jitter = 200
accesslog = "-"
errorlog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")

os.environ.setdefault("DATABASE_POOL", "true")
os.environ.setdefault("DATABASE_POOL_MAX_SIZE", str(threads))
wsgi_app = "procurement.wsgi:application"
