"""The procurement app: purchase requests handled by an agent, with people in the loop."""
from procurement.celery import app as celery_app

__all__ = ["celery_app"]
