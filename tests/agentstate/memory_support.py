"""Shared by the memory tests: a small policy for the engine alone (groups stand in for
departments), and a search of every text column of every table for a marker string."""
import pytest
from django.apps import apps
from django.contrib.auth.models import Group
from django.db import connection, models
from django.db.models import Q

from agentstate.memory import policy
from agentstate.memory.models import Scope, Sensitivity

MANAGERS = {"T1": "bob"}  # group name -> the username who confirms its memory


class GroupPolicy(policy.OwnPolicy):
    """Departments are auth groups; MANAGERS says who confirms each; superusers do everything."""

    def _groups(self, user):
        return set(user.groups.values_list("name", flat=True)) if user.is_active else set()

    def _manages(self, user):
        return {g for g, name in MANAGERS.items() if name == user.get_username()} & self._groups(user)

    def subjects_for(self, user, task=None):
        groups = [task.tenant] if task is not None else sorted(self._groups(user))
        return [(Scope.USER, user.get_username()), *[(Scope.DEPARTMENT, g) for g in groups],
                (Scope.ORGANISATION, "")]

    def subject_exists(self, scope, subject):
        if scope == Scope.DEPARTMENT:
            return Group.objects.filter(name=subject).exists()
        return super().subject_exists(scope, subject)

    def readable(self, user):
        if policy.is_admin(user) or not user.is_active:
            return super().readable(user)
        departments = Q(scope=Scope.DEPARTMENT, subject__in=self._groups(user)) & (
            ~Q(sensitivity=Sensitivity.CONFIDENTIAL) | Q(subject__in=self._manages(user)))
        return super().readable(user) | departments

    def may_read(self, user, entry):
        from agentstate.memory.models import MemoryEntry

        return MemoryEntry.objects.filter(self.readable(user), pk=entry.pk).exists()

    def may_propose(self, user, scope, subject):
        return super().may_propose(user, scope, subject) or (
            scope == Scope.DEPARTMENT and subject in self._groups(user))

    def may_write(self, user, scope, subject):
        return policy.is_admin(user) or (scope == Scope.DEPARTMENT and subject in self._manages(user))

    def may_confirm(self, user, entry):
        return super().may_confirm(user, entry) or (
            entry.scope == Scope.DEPARTMENT and entry.subject in self._manages(user))


@pytest.fixture
def group_policy():
    with policy.using(GroupPolicy()) as installed:
        yield installed


def where_text_is(marker: str) -> list[str]:
    """Every table.column whose value contains `marker`, across the whole database."""
    if connection.vendor == "postgresql":
        return _search_postgres(marker)
    return _search_models(marker)


def _search_postgres(marker):
    hits = []
    with connection.cursor() as cursor:
        cursor.execute("""
            SELECT c.table_name, c.column_name FROM information_schema.columns c
              JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
             WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
               AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')""")
        columns = cursor.fetchall()
        assert len(columns) > 50, "the search should cover every text column of the schema"
        for table, column in columns:
            cursor.execute(f'SELECT count(*) FROM "{table}" WHERE "{column}"::text LIKE %s', [f"%{marker}%"])
            if cursor.fetchone()[0]:
                hits.append(f"{table}.{column}")
    return hits


def _search_models(marker):
    hits = []
    for model in apps.get_models(include_auto_created=True):
        for field in model._meta.concrete_fields:
            if isinstance(field, (models.CharField, models.TextField, models.JSONField)):
                if model._base_manager.filter(**{f"{field.name}__icontains": marker}).exists():
                    hits.append(f"{model._meta.db_table}.{field.column}")
    return hits
