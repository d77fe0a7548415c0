"""Checkpoints keep their JSON as the exact text that was hashed, and may be deltas.

Existing rows get as `body` the same serialisation their checksum was computed over, so every
old checksum still verifies. The duplicate index on task_id goes (the (task, -id) index serves
the foreign key), as does the never-searched index on parent_id."""
import json

from django.core.serializers.json import DjangoJSONEncoder
from django.db import migrations, models
import django.db.models.deletion


def fill_body(apps, schema_editor):
    Checkpoint = apps.get_model("agentstate", "Checkpoint")
    for cp in Checkpoint.objects.all().iterator():
        body = {"snapshot": cp.snapshot, "cursor": cp.cursor, "pending": cp.pending,
                "external_refs": cp.external_refs, "tenant": cp.tenant, "schema_version": cp.schema_version}
        cp.body = json.dumps(body, cls=DjangoJSONEncoder, sort_keys=True, ensure_ascii=False)
        Checkpoint.objects.filter(pk=cp.pk).update(body=cp.body)


def lz4_for_large_json(apps, schema_editor):
    """On PostgreSQL built with lz4, store the task's JSON and checkpoint bodies compressed with
    lz4 (several times faster than the default pglz on every move of a large state)."""
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' "
                       "AND 'lz4' = ANY(enumvals)")
        if cursor.fetchone():
            cursor.execute("ALTER TABLE agentstate_task ALTER COLUMN data SET COMPRESSION lz4")
            cursor.execute("ALTER TABLE agentstate_checkpoint ALTER COLUMN body SET COMPRESSION lz4")


class Migration(migrations.Migration):

    dependencies = [
        ("agentstate", "0002_memory"),
    ]

    operations = [
        migrations.AddField(
            model_name="checkpoint", name="body", field=models.TextField(default=""), preserve_default=False),
        migrations.AddField(
            model_name="checkpoint", name="depth",
            field=models.PositiveSmallIntegerField(default=0, help_text="0: full snapshot; n: n-th delta after it.")),
        migrations.RunPython(fill_body, migrations.RunPython.noop),
        migrations.RunPython(lz4_for_large_json, migrations.RunPython.noop),
        migrations.RemoveField(model_name="checkpoint", name="snapshot"),
        migrations.RemoveField(model_name="checkpoint", name="pending"),
        migrations.RemoveField(model_name="checkpoint", name="external_refs"),
        migrations.RemoveIndex(model_name="checkpoint", name="agentstate__task_id_4e6320_idx"),
        migrations.AddIndex(
            model_name="checkpoint",
            index=models.Index(fields=["task", "-version"], name="checkpoint_task_version_idx")),
        migrations.AlterField(
            model_name="checkpoint", name="task",
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                    related_name="checkpoints", to="agentstate.task")),
        migrations.AlterField(
            model_name="checkpoint", name="parent",
            field=models.ForeignKey(blank=True, db_index=False, null=True,
                                    on_delete=django.db.models.deletion.SET_NULL, to="agentstate.checkpoint")),
    ]
