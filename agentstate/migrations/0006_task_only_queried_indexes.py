"""A move rewrites every index of the task row (it changes `state`, which the review queue's
(tenant, state) index holds, so no update is HOT): the indexes no query uses go. `tenant` alone
and `initiator` alone are prefixes of (tenant, state) and (initiator, -created_at); the
varchar_pattern_ops copy of tenant served no LIKE; nothing looks tasks up by content type."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('agentstate', '0005_session_lifecycle'),
        ('contenttypes', '0002_remove_content_type_name'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name='task',
            name='content_type',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, to='contenttypes.contenttype'),
        ),
        migrations.AlterField(
            model_name='task',
            name='initiator',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='agent_tasks', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AlterField(
            model_name='task',
            name='tenant',
            field=models.CharField(help_text='Scope key for access, e.g. a group code.', max_length=50),
        ),
    ]
