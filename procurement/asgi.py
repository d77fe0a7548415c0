"""ASGI entry point. Refuses to serve without SECRET_KEY unless DEBUG."""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "procurement.settings")
application = get_asgi_application()

from procurement.infra.deploy import require_secret_key  # noqa: E402  (settings are loaded now)

require_secret_key()
