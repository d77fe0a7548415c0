"""Every purchase request gets a number people can say aloud (REQ-<year>-<five digits>);
requests confirmed before this migration are numbered in the order they were made."""
from django.db import migrations, models
from django.utils import timezone


def number_existing(apps, schema_editor):
    PurchaseRequest = apps.get_model("procurement", "PurchaseRequest")
    RequestCounter = apps.get_model("procurement", "RequestCounter")
    counters = {}
    for request in PurchaseRequest.objects.order_by("created_at", "pk"):
        year = timezone.localtime(request.created_at).year
        counters[year] = counters.get(year, 0) + 1
        request.number = f"REQ-{year}-{counters[year]:05d}"
        request.save(update_fields=["number"])
    for year, last in counters.items():
        RequestCounter.objects.update_or_create(year=year, defaults={"last": last})


class Migration(migrations.Migration):

    dependencies = [
        ('procurement', '0003_supplier_tax_id_checksum'),
    ]

    operations = [
        migrations.CreateModel(
            name='RequestCounter',
            fields=[
                ('year', models.PositiveSmallIntegerField(primary_key=True, serialize=False)),
                ('last', models.PositiveIntegerField(default=0)),
            ],
        ),
        migrations.AddField(
            model_name='purchaserequest',
            name='number',
            field=models.CharField(editable=False, max_length=20, null=True,
                                   help_text='What people call it, e.g. "REQ-2026-00042"; given when the request is confirmed.'),
        ),
        migrations.RunPython(number_existing, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='purchaserequest',
            name='number',
            field=models.CharField(editable=False, max_length=20, unique=True,
                                   help_text='What people call it, e.g. "REQ-2026-00042"; given when the request is confirmed.'),
        ),
    ]
