"""`GET /healthz`: is the database reachable, is the broker reachable."""
from django.db import connection
from django.http import JsonResponse

from procurement.celery import app as celery_app


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except Exception:
        return False


def _broker_ok() -> bool:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return True
    except Exception:
        return False


def healthz(request):
    status = {"database": "ok" if _database_ok() else "down", "broker": "ok" if _broker_ok() else "down"}
    healthy = all(value == "ok" for value in status.values())
    return JsonResponse(status, status=200 if healthy else 503)
