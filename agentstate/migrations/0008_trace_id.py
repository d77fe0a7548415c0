"""Tasks and memory uses carry a W3C trace id (agentstate.trace). A task started before this has
none: it gets its own id's 32 hex digits, so its work from now on is one trace too."""
from django.db import migrations, models


def backfill(apps, schema_editor):
    table = apps.get_model("agentstate", "Task")._meta.db_table
    cast = "id::text" if schema_editor.connection.vendor == "postgresql" else "id"
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET trace_id = lower(replace({cast}, '-', '')) WHERE trace_id = ''")


class Migration(migrations.Migration):

    dependencies = [
        ('agentstate', '0007_artifacts'),
    ]

    operations = [
        migrations.AddField(
            model_name='memoryevent',
            name='trace_id',
            field=models.CharField(blank=True, help_text='The trace of the work it was used in.', max_length=32),
        ),
        migrations.AddField(
            model_name='task',
            name='trace_id',
            field=models.CharField(blank=True, max_length=32),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
