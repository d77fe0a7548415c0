from django.apps import AppConfig


class ProcurementConfig(AppConfig):
    name = "procurement"
    verbose_name = "Procurement"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from agentstate.kinds import register

        from . import access, steps, tasks, workflow

        register(workflow.build_kind(
            on_runnable=lambda task_id: tasks.advance.delay(task_id),
            client_for=lambda operation: steps.client(),
            on_receipt_resolved=steps.receipt_resolved,
            may_view=access.may_view,
            may_decide=access.may_decide,
        ))
        from .memory_policy import register as register_memory_policy

        register_memory_policy()
