"""WSGI entry point (gunicorn, see gunicorn.conf.py). Refuses to serve without SECRET_KEY unless DEBUG."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "procurement.settings")
application = get_wsgi_application()

from procurement.infra.deploy import require_secret_key  # noqa: E402  (settings are loaded now)

require_secret_key()
