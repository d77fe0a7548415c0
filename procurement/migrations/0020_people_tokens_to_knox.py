"""The tokens people had (DRF's, one each) become their first named token, with the same key and
the expiry it had (made + API_TOKEN_TTL_HOURS): clients holding one keep working. Only a digest
of each key is kept from now on; the old rows are deleted (the table stays until an admin drops it)."""
import hashlib
from datetime import timedelta

from django.conf import settings
from django.db import migrations

OLD_TABLE = "authtoken_token"  # rest_framework.authtoken's, no longer installed
KEY_PREFIX = 15  # knox's CONSTANTS.TOKEN_KEY_LENGTH


def forwards(apps, schema_editor):
    connection = schema_editor.connection
    if OLD_TABLE not in connection.introspection.table_names():
        return  # a database made after DRF's tokens left
    ApiToken = apps.get_model("procurement", "ApiToken")
    ttl = timedelta(hours=settings.API_TOKEN_TTL_HOURS)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT key, user_id, created FROM {OLD_TABLE}")
        rows = cursor.fetchall()
    for key, user_id, created in rows:
        digest = hashlib.sha512(key.encode()).hexdigest()
        ApiToken.objects.bulk_create([ApiToken(digest=digest, token_key=key[:KEY_PREFIX], user_id=user_id,
                                               expiry=created + ttl, name="before per-client tokens")])
        ApiToken.objects.filter(pk=digest).update(created=created)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {OLD_TABLE}")


class Migration(migrations.Migration):
    dependencies = [
        ("procurement", "0019_people_api_tokens"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
