"""On PostgreSQL the database itself refuses a task change the engine did not make (DESIGN §15).

A deferred constraint trigger on the task row: a task's state never changes without a new
version; a version only ever grows by one; and every new (task, version), from task_create or
fire(), has its TaskEvent by commit. fire() already writes the event in the same statement,
so the engine pays one index probe at commit and no extra round trip. An admin, a shell or a
stray UPDATE that moves a task without an event fails at commit and changes nothing."""
from django.db import migrations, models

CREATE = """
CREATE OR REPLACE FUNCTION agentstate_task_change_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.version = OLD.version THEN
            IF NEW.state IS DISTINCT FROM OLD.state THEN
                RAISE EXCEPTION 'task % changed state from % to % without a new version: only the engine '
                    'changes a task''s state (agentstate.machine.fire)', NEW.id, OLD.state, NEW.state
                    USING ERRCODE = 'integrity_constraint_violation';
            END IF;
            RETURN NULL;
        END IF;
        IF NEW.version <> OLD.version + 1 THEN
            RAISE EXCEPTION 'task % version went from % to %: a version only grows by one', NEW.id, OLD.version,
                NEW.version USING ERRCODE = 'integrity_constraint_violation';
        END IF;
    END IF;
    -- Deferred to commit: the engine's own statement has written the event by then.
    PERFORM 1 FROM agentstate_taskevent WHERE task_id = NEW.id AND version = NEW.version;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'task % reached version % (state %) without a task event: only the engine changes a '
            'task (agentstate.machine.fire)', NEW.id, NEW.version, NEW.state
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS agentstate_task_change_guard ON agentstate_task;
CREATE CONSTRAINT TRIGGER agentstate_task_change_guard
    AFTER INSERT OR UPDATE OF state, version ON agentstate_task
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION agentstate_task_change_guard();
"""

DROP = """
DROP TRIGGER IF EXISTS agentstate_task_change_guard ON agentstate_task;
DROP FUNCTION IF EXISTS agentstate_task_change_guard();
"""


def _run(schema_editor, sql: str):
    # No parameters: the function body's "%" placeholders are PL/pgSQL's, not the driver's.
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(sql)


def create(apps, schema_editor):
    _run(schema_editor, CREATE)


def drop(apps, schema_editor):
    _run(schema_editor, DROP)


class Migration(migrations.Migration):

    dependencies = [
        ("agentstate", "0003_checkpoint_body"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="taskevent",
            index=models.Index(fields=["task", "version"], name="agentstate_event_task_version"),
        ),
        migrations.RunPython(create, drop, elidable=False),
    ]
