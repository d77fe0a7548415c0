"""What the product runs on: settings from the environment, the ERP client and the outbox of
effects, the Celery broker and queues, health, telemetry, input limits and guards, and the fault
points the crash tests use. Nothing here knows a purchase request. DESIGN §2, §12, §13."""
