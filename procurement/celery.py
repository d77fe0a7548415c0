"""The Celery app: `celery -A procurement worker` and `celery -A procurement beat`."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "procurement.settings")

app = Celery("procurement")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
