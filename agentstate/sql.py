"""The engine's writes to the task row, in one place so they can be tuned.

On PostgreSQL a transition is one statement: a conditional UPDATE of the task (WHERE
version = n, and the lease token when a worker writes) whose RETURNING feeds the event,
checkpoint and approval-supersede writes in the same statement. Zero rows means someone
else moved the task first, and then nothing at all was written. Elsewhere (SQLite) the
same writes run as ORM calls inside one transaction.
"""
import json
from dataclasses import dataclass

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction

from .models import Approval, Checkpoint, Task, TaskEvent


@dataclass(frozen=True)
class Move:
    task_id: object
    from_version: int
    from_state: str
    to_state: str
    step: str
    data: dict
    runnable: bool
    lease_token: int | None
    event: str
    actor: str
    reason: str
    trace_id: str
    now: object
    checkpoint: dict | None  # label, tenant, schema_version, snapshot, cursor, pending, external_refs, checksum


def dumps(value) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, sort_keys=True, ensure_ascii=False)


_T = Task._meta.db_table
_E = TaskEvent._meta.db_table
_C = Checkpoint._meta.db_table
_A = Approval._meta.db_table

_PG_MOVE = f"""
WITH moved AS (
    UPDATE {_T} SET state = %(to_state)s, version = version + 1, step = %(step)s,
           data = %(data)s::jsonb, runnable = %(runnable)s, updated_at = %(now)s
     WHERE id = %(task_id)s AND version = %(from_version)s AND state = %(from_state)s
           AND (%(lease_token)s::bigint IS NULL OR lease_token = %(lease_token)s::bigint)
    RETURNING id, version
), event AS (
    INSERT INTO {_E} (task_id, at, actor, event, from_state, to_state, version, reason, trace_id, data)
    SELECT id, %(now)s, %(actor)s, %(event)s, %(from_state)s, %(to_state)s, version, %(reason)s,
           %(trace_id)s, '{{}}'::jsonb FROM moved
    RETURNING id
), superseded AS (
    UPDATE {_A} SET status = 'superseded'
     WHERE task_id = %(task_id)s AND status = 'pending' AND EXISTS (SELECT 1 FROM moved)
    RETURNING id
){{checkpoint}}
SELECT (SELECT count(*) FROM moved), (SELECT count(*) FROM superseded)
"""

_PG_CHECKPOINT = f""", checkpoint AS (
    INSERT INTO {_C} (task_id, version, parent_id, tenant, schema_version, label, snapshot, cursor,
                      pending, external_refs, checksum, created_at)
    SELECT id, version, (SELECT max(id) FROM {_C} WHERE task_id = %(task_id)s), %(cp_tenant)s,
           %(cp_schema_version)s, %(cp_label)s, %(cp_snapshot)s::jsonb, %(cp_cursor)s,
           %(cp_pending)s::jsonb, %(cp_external_refs)s::jsonb, %(cp_checksum)s, %(now)s
      FROM moved
    RETURNING id
)"""

PG_WITH_CHECKPOINT = _PG_MOVE.replace("{checkpoint}", _PG_CHECKPOINT)
PG_WITHOUT_CHECKPOINT = _PG_MOVE.replace("{checkpoint}", "")


_READ_COLUMNS = ("id", "kind", "initiator_id", "tenant", "state", "version", "step", "data", "schema_version",
                 "lease_token")
_READ = f"SELECT {', '.join(_READ_COLUMNS)} FROM {_T} WHERE id = %s"


def read_task(task_id) -> Task | None:
    """The task as fire() needs it, in one plain query (the ORM's own costs as much as the query)."""
    pk = Task._meta.pk
    with connection.cursor() as cursor:
        cursor.execute(_READ, [pk.get_db_prep_value(pk.to_python(task_id), connection)])
        row = cursor.fetchone()
    if row is None:
        return None
    values = dict(zip(_READ_COLUMNS, row))
    values["id"] = pk.to_python(values["id"])
    values["data"] = Task._meta.get_field("data").from_db_value(values["data"], None, connection)
    task = Task(**values)
    task._state.adding, task._state.db = False, connection.alias
    return task


def apply_move(move: Move) -> bool:
    """Write the transition if the task is still where the caller read it. True if written."""
    if connection.vendor == "postgresql":
        return _apply_pg(move)
    return _apply_orm(move)


def _apply_pg(move: Move) -> bool:
    params = {
        "task_id": move.task_id, "from_version": move.from_version, "from_state": move.from_state,
        "to_state": move.to_state, "step": move.step, "data": dumps(move.data), "runnable": move.runnable,
        "lease_token": move.lease_token, "event": move.event, "actor": move.actor, "reason": move.reason,
        "trace_id": move.trace_id, "now": move.now,
    }
    sql = PG_WITHOUT_CHECKPOINT
    if move.checkpoint is not None:
        sql = PG_WITH_CHECKPOINT
        cp = move.checkpoint
        params |= {
            "cp_tenant": cp["tenant"], "cp_schema_version": cp["schema_version"], "cp_label": cp["label"],
            "cp_snapshot": dumps(cp["snapshot"]), "cp_cursor": cp["cursor"], "cp_pending": dumps(cp["pending"]),
            "cp_external_refs": dumps(cp["external_refs"]), "cp_checksum": cp["checksum"],
        }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        moved, _superseded = cursor.fetchone()
    return moved == 1


def _apply_orm(move: Move) -> bool:
    with transaction.atomic():
        rows = Task.objects.filter(pk=move.task_id, version=move.from_version, state=move.from_state)
        if move.lease_token is not None:
            rows = rows.filter(lease_token=move.lease_token)
        moved = rows.update(state=move.to_state, version=move.from_version + 1, step=move.step, data=move.data,
                            runnable=move.runnable, updated_at=move.now)
        if not moved:
            return False
        version = move.from_version + 1
        TaskEvent.objects.create(task_id=move.task_id, actor=move.actor, event=move.event,
                                 from_state=move.from_state, to_state=move.to_state, version=version,
                                 reason=move.reason, trace_id=move.trace_id)
        Approval.objects.filter(task_id=move.task_id, status=Approval.Status.PENDING).update(
            status=Approval.Status.SUPERSEDED)
        if move.checkpoint is not None:
            cp = move.checkpoint
            parent_id = Checkpoint.objects.filter(task_id=move.task_id).order_by("-id").values_list(
                "id", flat=True).first()
            Checkpoint.objects.create(task_id=move.task_id, version=version, parent_id=parent_id,
                                      tenant=cp["tenant"], schema_version=cp["schema_version"], label=cp["label"],
                                      snapshot=cp["snapshot"], cursor=cp["cursor"], pending=cp["pending"],
                                      external_refs=cp["external_refs"], checksum=cp["checksum"])
    return True
