"""A token made before tokens were per client (DRF's, one a person) keeps working after the
upgrade, as that person's first named token, with the expiry it had; only its digest is kept."""
import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from procurement.models import ApiToken

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]
OLD_KEY = "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"


def test_a_token_from_before_keeps_working_as_a_named_token(demo):
    made = timezone.now() - timedelta(days=2)
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, user_id integer NOT NULL, "
                       "created timestamptz NOT NULL)")
        cursor.execute("INSERT INTO authtoken_token VALUES (%s, %s, %s)", [OLD_KEY, demo["alice"].pk, made])
    migration = importlib.import_module("procurement.migrations.0020_people_tokens_to_knox")
    with connection.schema_editor(atomic=False) as editor:
        migration.forwards(apps, editor)

    [token] = ApiToken.objects.filter(user=demo["alice"])
    assert token.name and token.digest != OLD_KEY and token.created == made
    assert abs(token.expiry - (made + timedelta(hours=30 * 24))) < timedelta(seconds=1)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {OLD_KEY}")
    assert client.get("/api/v1/tasks/").status_code == 200
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM authtoken_token")
        assert cursor.fetchone() == (0,), "no key is left in the clear"
