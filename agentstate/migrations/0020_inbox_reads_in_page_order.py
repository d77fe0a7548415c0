"""The inbox reads what it shows in the order it shows it, and stops.

- The approvals a person decided, newest first (with the task and the id, index only): the
  "decided by me" tab walks them by date and stops at the rows it reads, where it sorted every
  approval the person decided (approval_decided_by_task_idx served the same lookups by decider).
- A person's approver rows in approval-id order, from the index alone: the department filter's
  look for one approval reaching the reader in a department meets the departments mixed and stops
  at the first, where by the user_id index (rows in the order they were written) it read a
  manager's every row of his own department first. The table is the approvers' many-to-many,
  which Django creates itself, so that index is SQL.
"""
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('agentstate', '0019_inbox_at_a_million_approvals'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='approval',
            name='approval_decided_by_task_idx',
        ),
        migrations.AddIndex(
            model_name='approval',
            index=models.Index(fields=['decided_by', '-decided_at', '-created_at'], include=('task', 'id'),
                               name='approval_decider_dates_idx'),
        ),
        migrations.RunSQL(
            "CREATE INDEX approval_approvers_user_approval_idx ON agentstate_approval_approvers (user_id, approval_id)",
            "DROP INDEX approval_approvers_user_approval_idx",
        ),
    ]
