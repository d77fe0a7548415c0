from django.apps import AppConfig


class AgentStateConfig(AppConfig):
    name = "agentstate"
    verbose_name = "Agent state"
    default_auto_field = "django.db.models.BigAutoField"
