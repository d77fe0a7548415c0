from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ProcurementConfig(AppConfig):
    name = "procurement"
    verbose_name = _("Procurement")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from agentstate.kinds import register

        from procurement.infra import erp, queueing  # noqa: F401 (tasks, signals, people, words: register)
        from procurement.words import people
        from procurement import selectors, signals, tasks, words, workflow
        from procurement.purchase import steps
        from procurement.invoicing import services as invoicing_services
        from procurement.history.timetravel import PurchaseHooks
        from procurement.policy import deciding
        from procurement.notices.derive import notices_for_task
        from procurement.notices.delegations import delegation_notices

        from procurement.notices.invoices import invoice_notices
        from procurement.notices.supplier import supplier_po_files
        from procurement.infra import outbox

        outbox.ATTACHMENTS["supplier_po"] = supplier_po_files

        queueing.notices_written_by(lambda task_id: notices_for_task(task_id) + invoice_notices(task_id),
                                    delegations=delegation_notices)
        register(workflow.build_kind(
            on_runnable=queueing.advance_now,
            client_for=lambda operation: steps.client(),
            on_receipt_resolved=invoicing_services.receipt_resolved,
            compensations=frozenset({erp.CANCEL_REQUISITION}),
            may_view=selectors.may_view,
            may_decide=selectors.may_decide,
            time_travel=PurchaseHooks(),
            step_decider=deciding.step_decider,
        ))
        from procurement.selectors.memory import register as register_memory_policy

        register_memory_policy()
        from procurement.infra import deploy  # noqa: F401  (registers the deployment checks)
        from procurement.invoicing import checks  # noqa: F401  (registers the COMPANY_TAX_ID check)
        from procurement.infra import telemetry

        telemetry.setup()
