"""The purchase tasks whose PO is out (ordered, or closed short), newest first: accounts payable's
list of POs to invoice walks it and stops at the page, where among 100,000 ordered tasks it read
and sorted them all (bench/scale.py). Partial, so a move writes an entry only for a task in one
of those two states; the table is the engine's, the states are this app's."""
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('agentstate', '0020_inbox_reads_in_page_order'),
        ('procurement', '0021_hearing_catalogue_vocabulary'),
    ]

    operations = [
        migrations.RunSQL(
            "CREATE INDEX task_po_out_created_idx ON agentstate_task (created_at DESC) "
            "WHERE kind = 'purchase' AND state IN ('externally_confirmed', 'closed')",
            "DROP INDEX task_po_out_created_idx",
        ),
    ]
