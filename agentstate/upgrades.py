"""Bringing a task's JSON to its kind's current shape (DESIGN §4: `data` carries `schema_version`).

A kind registers one upgrade function per version (kinds.TaskKind.upgrades); a task of an older
version is upgraded in place the first time the engine or a worker loads it, oldest upgrade
first, with an event saying so. The upgrade is not a new version: the shape changed, not the
work, so an approval bound to the version stays valid. Data of a newer version than this code
knows is refused (errors.SchemaTooNew) and nothing is changed. Checkpoints are upgraded as they
are read (checkpoints.checkpoint_load) and never rewritten, so their checksums keep holding.
"""
from django.db import transaction

from .kinds import get_kind
from .models import Task, TaskEvent
from .said import event_fields, say

UPGRADED_EVENT = "schema.upgraded"


def task_upgrade(task: Task) -> Task:
    """`task` with its data in its kind's current shape: the same object when it already is,
    else the row as upgraded (under its row lock, so two workers upgrade it once)."""
    kind = get_kind(task.kind)
    kind.check_schema(task.schema_version)
    if task.schema_version == kind.schema_version:
        return task
    with transaction.atomic():
        row = Task.objects.select_for_update(no_key=True).get(pk=task.pk)
        kind.check_schema(row.schema_version)
        if row.schema_version < kind.schema_version:
            before = row.schema_version
            row.data, row.schema_version = kind.upgrade(row.data, before), kind.schema_version
            Task.objects.filter(pk=row.pk).update(data=row.data, data_overlay={},
                                                    schema_version=row.schema_version)
            reason, data = event_fields(say("data_upgraded", old=before, new=row.schema_version),
                                        {"from": before, "to": row.schema_version})
            TaskEvent.objects.create(task_id=row.pk, actor="runtime", event=UPGRADED_EVENT, from_state=row.state,
                                     to_state=row.state, version=row.version, reason=reason, data=data)
    return row
