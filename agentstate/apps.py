from django.apps import AppConfig
from django.db.backends.signals import connection_created
from django.utils.translation import gettext_lazy as _


class AgentStateConfig(AppConfig):
    name = "agentstate"
    verbose_name = _("Agent state")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from .sql import plan_once

        connection_created.connect(plan_once, dispatch_uid="agentstate.plan_once")
