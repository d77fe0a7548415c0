"""The engine's reads and writes of tasks and checkpoints, in one place so they can be tuned.

On PostgreSQL a transition is one statement: a conditional UPDATE of the task (WHERE
version = n, and the lease token when a worker writes) whose RETURNING feeds the event,
checkpoint and, when the transition says so, approval-supersede writes in the same
statement. Zero rows means someone else moved the task first, and then nothing at all was
written. Elsewhere (SQLite) the same writes run as ORM calls inside one transaction.
The newest checkpoint, with the delta chain back to its full snapshot, is one query.
"""
import datetime
import hashlib
import json
import weakref
from dataclasses import dataclass

import orjson

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.utils import timezone

from .models import Approval, Checkpoint, MergedData, Task, TaskEvent


@dataclass(frozen=True)
class Move:
    task_id: object
    from_version: int
    from_state: str
    from_step: str
    to_state: str
    step: str
    changes: dict     # the top-level keys this move sets, merged into the task's JSON
    data: dict | None  # the whole merged JSON when the engine read it (always on SQLite)
    runnable: bool
    lease_token: int | None
    event: str
    actor: str
    reason: str
    trace_id: str
    now: object
    checkpoint: dict | None  # label, cursor, tenant, schema_version, pending, external_refs, depth, delta
    event_data: dict | None = None  # the event row's data
    supersede_approvals: bool = True
    durable: bool = True  # False: commit without waiting for the WAL flush (see kinds.Transition)


def dumps(value) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, sort_keys=True, ensure_ascii=False)


_DJANGO_JSON = DjangoJSONEncoder()
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS


def dumps_state(value) -> str:
    """The keys a move sets, as it sends them to be merged (the server parses them as jsonb, so the
    text is never stored or hashed): orjson (a 100 KB state in about a tenth of the standard
    library's time), with Django's encoder for what orjson leaves to it (dates and times written as
    Django writes them, decimals, lazy text), and the standard library for what orjson refuses
    (integers beyond 64 bits). Stored texts (a delta's body) and scope and request hashes keep
    dumps(), whose exact text they were taken of."""
    try:
        return orjson.dumps(value, default=_DJANGO_JSON.default, option=_ORJSON_OPTIONS).decode()
    except (orjson.JSONEncodeError, TypeError):
        return dumps(value)


def loads(text: str):
    """Parse stored JSON: orjson (several times faster than the standard library on a large
    snapshot), or the standard library for what orjson refuses (integers beyond 64 bits)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def merges_in_database() -> bool:
    return connection.vendor == "postgresql"


# A checkpoint holds the whole state when that is small (under DELTA_ABOVE bytes as the move reads
# it, uncompressed: a 10 KB state of similar lines stored in 593 bytes still counts as large) or
# when FULL_EVERY - 1 deltas came before it; otherwise it holds only the keys this move set, so a
# step that touches one key of a large state writes that key, not the state.
FULL_EVERY = 32
DELTA_ABOVE = 2048
# A move that sets this much JSON or more (as sent) writes a full checkpoint, not a delta: a step that
# replaces the state (a new quote sheet, a rewritten request) would otherwise leave a chain of large
# deltas that every later read must fetch, hash and merge (at 100 KB, 30 deltas of the whole state).
FULL_FROM_CHANGES = 8192

_T = Task._meta.db_table
_E = TaskEvent._meta.db_table
_C = Checkpoint._meta.db_table
_A = Approval._meta.db_table

# The move's changes go into the task's small overlay column (`||` is a top-level merge, as in
# fire()), so a large `data` stays as stored (TOASTed) and is not rewritten. A move that writes a
# full checkpoint (`fold`, decided on the row as it was) first folds the overlay back into `data`,
# and its snapshot is that row. Without changes and nothing to fold the columns are left alone.
_FOLD = f"(COALESCE(%(cp_depth)s::int = 0, false) OR pg_column_size(data) < {DELTA_ABOVE})"
# A move whose keys are every key of the state as written (a step that replaced the state) is its
# own full snapshot: the checkpoint's body is then the client's text of those keys spliced into the
# body's other fields (`cp_head`, `cp_tail`), so the server neither serialises the state again nor
# builds it into an object (at 100 KB most of the move's time on the server). Every key of the row
# just written must be one the move set, so the spliced text is the state, whatever was there before.
_WHOLE = (f"CASE WHEN %(cp_head)s::text IS NULL OR NOT {_FOLD} THEN false "
          "ELSE NOT EXISTS (SELECT 1 FROM jsonb_object_keys(data) k WHERE NOT %(changes)s::jsonb ? k) END")
_PG_MOVE = f"""
WITH moved AS (
    UPDATE {_T} SET state = %(to_state)s, version = version + 1, step = %(step)s,
           data = CASE WHEN NOT {_FOLD} OR (%(changes)s::jsonb IS NULL AND data_overlay = '{{}}'::jsonb) THEN data
                       ELSE data || data_overlay || COALESCE(%(changes)s::jsonb, '{{}}'::jsonb) END,
           data_overlay = CASE WHEN {_FOLD} THEN '{{}}'::jsonb WHEN %(changes)s::jsonb IS NULL THEN data_overlay
                               ELSE data_overlay || %(changes)s::jsonb END,
           runnable = %(runnable)s, updated_at = %(now)s
     WHERE id = %(task_id)s AND version = %(from_version)s AND state = %(from_state)s AND step = %(from_step)s
           AND (%(lease_token)s::bigint IS NULL OR lease_token = %(lease_token)s::bigint)
    -- Said again of the row as written: where nothing was folded `data` is the same value, so the
    -- answer is the same; where it was, a larger `data` may now call for a delta, which is sound.
    RETURNING id, version, {_FOLD} AS fold, CASE WHEN {_FOLD} THEN data END AS data, trace_id,
              {_WHOLE} AS whole
), event AS (
    INSERT INTO {_E} (task_id, at, actor, event, from_state, to_state, version, reason, trace_id, data)
    SELECT id, %(now)s, %(actor)s, %(event)s, %(from_state)s, %(to_state)s, version, %(reason)s,
           COALESCE(NULLIF(trace_id, ''), %(trace_id)s), %(event_data)s::jsonb FROM moved
    RETURNING id
){{supersede}}{{checkpoint}}
SELECT count(*), {{written_depth}}{{commit}} FROM moved
"""

# The transition's supersedes_approvals flag (kinds.Transition) puts this part in the statement.
_PG_SUPERSEDE = f""", superseded AS (
    UPDATE {_A} SET status = 'superseded'
     WHERE task_id = %(task_id)s AND status = 'pending' AND EXISTS (SELECT 1 FROM moved)
    RETURNING id
)"""

# A full checkpoint's body is serialised by the server from the row just written (never sent by
# the client); a delta's is the client's text of the keys this move set. Every body is hashed by
# the server as the exact text stored.
_PG_CHECKPOINT = f""", checkpoint AS (
    INSERT INTO {_C} (task_id, version, parent_id, tenant, schema_version, label, cursor, depth, body, checksum,
                      created_at)
    SELECT m.id, m.version, (SELECT id FROM {_C} WHERE task_id = %(task_id)s ORDER BY version DESC LIMIT 1),
           %(cp_tenant)s, %(cp_schema_version)s, %(cp_label)s, %(cp_cursor)s,
           CASE WHEN m.fold THEN 0 ELSE %(cp_depth)s END, b.body,
           encode(sha256(convert_to(b.body, 'UTF8')), 'hex'), %(now)s
      FROM moved m,
           LATERAL (SELECT CASE WHEN m.whole THEN %(cp_head)s::text || %(changes)s::text || %(cp_tail)s::text
                                WHEN m.fold THEN jsonb_build_object(
               'snapshot', jsonb_build_object('state', %(to_state)s::text, 'version', m.version,
                                              'step', %(step)s::text, 'data', m.data),
               'cursor', %(cp_cursor)s::text, 'pending', %(cp_pending)s::jsonb,
               'external_refs', %(cp_external_refs)s::jsonb, 'tenant', %(cp_tenant)s::text,
               'schema_version', %(cp_schema_version)s::int)::text
               ELSE %(cp_delta)s::text END AS body) b
    RETURNING depth
)"""

# A move that is its own transaction and not durable sets synchronous_commit=off for that one
# transaction (set_config(..., true) ends with it): the commit does not wait for the WAL flush.
_NO_FLUSH_WAIT = ", set_config('synchronous_commit', 'off', true)"

PG_MOVES = {(supersede, checkpoint, durable): _PG_MOVE.replace("{supersede}", _PG_SUPERSEDE if supersede else "")
            .replace("{checkpoint}", _PG_CHECKPOINT if checkpoint else "")
            .replace("{written_depth}", "(SELECT depth FROM checkpoint)" if checkpoint else "NULL::int")
            .replace("{commit}", "" if durable else _NO_FLUSH_WAIT)
            for supersede in (True, False) for checkpoint in (True, False) for durable in (True, False)}


# In the model's field order, as Task.from_db() expects.
_READ_COLUMNS = ("id", "kind", "initiator_id", "tenant", "state", "version", "step", "schema_version",
                 "lease_token")
_READ_COLUMNS_WITH_DATA = ("id", "kind", "initiator_id", "tenant", "state", "version", "step", "data",
                           "schema_version", "lease_token")
# The task without its JSON, and the version and depth of its newest checkpoint (does a delta fit?).
_READ = f"""
SELECT {{columns}},
       (SELECT version FROM {_C} WHERE task_id = t.id ORDER BY version DESC LIMIT 1),
       (SELECT depth FROM {_C} WHERE task_id = t.id ORDER BY version DESC LIMIT 1)
  FROM {_T} t WHERE t.id = %s"""
_READS = {columns: _READ.replace("{columns}", ", ".join("t." + c for c in columns))
          for columns in (_READ_COLUMNS, _READ_COLUMNS_WITH_DATA)}


_PREPARED_CURSOR = None
# Django opens psycopg connections with prepare_threshold=None, which turns preparation off for
# every statement, even one executed with prepare=True. Django's own cursors bind on the client
# and never prepare whatever the threshold, so a threshold no statement reaches leaves them as
# they were and lets the engine's cursor prepare the statements it names.
_ONLY_WHEN_ASKED = 1 << 30


def _prepared():
    """A cursor whose statements PostgreSQL parses and plans once per connection (Django's own
    cursors bind on the client and are planned on every call); Django still sees every query."""
    global _PREPARED_CURSOR
    if _PREPARED_CURSOR is None:
        from django.db.backends.postgresql.base import ServerBindingCursor

        class Prepared(ServerBindingCursor):
            def execute(self, query, params=None, *, prepare=None, binary=None):
                return super().execute(query, params, prepare=True, binary=binary)

        _PREPARED_CURSOR = Prepared
    connection.ensure_connection()
    raw = connection.connection
    if raw.prepare_threshold is None:
        raw.prepare_threshold = _ONLY_WHEN_ASKED
    return connection._prepare_cursor(_PREPARED_CURSOR(raw))


_PLANNED_ONCE = weakref.WeakSet()


def plan_once(sender, connection, **kwargs):
    """On each new PostgreSQL connection (connection_created): every statement this module
    prepares is planned once, for any task. Its plan is a few index probes by task id; left to
    choose, PostgreSQL plans a statement again on every call when the statistics make one task
    look costlier than the average (the chain read in bench/sidebyside.py: 1,300 per-call plans
    and no generic one, 0.14 ms of planning per read). Django's own cursors are never prepared,
    so nothing else is affected. Set at connect, before any transaction can roll it back; a
    pooled connection keeps it and is not asked again."""
    if connection.vendor != "postgresql" or connection.connection in _PLANNED_ONCE:
        return
    with connection.connection.cursor() as cursor:
        cursor.execute("SET plan_cache_mode = force_generic_plan")
    _PLANNED_ONCE.add(connection.connection)


def _pk(task_id):
    pk = Task._meta.pk
    return pk.get_db_prep_value(pk.to_python(task_id), connection)


def read_task(task_id) -> Task | None:
    """The task as fire() needs it, in one plain query (the ORM's own costs as much as the query).
    Where the database merges the JSON (PostgreSQL) `data` is left deferred: it loads on first
    use, or through read_task_data(); elsewhere it is read here."""
    columns = _READ_COLUMNS if merges_in_database() else _READ_COLUMNS_WITH_DATA
    with _cursor() as cursor:
        cursor.execute(_READS[columns], [_pk(task_id)])
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row[:len(columns)])
    values[0] = Task._meta.pk.to_python(values[0])
    if "data" in columns:
        at = columns.index("data")
        values[at] = Task._meta.get_field("data").from_db_value(values[at], None, connection)
    task = Task.from_db(connection.alias, list(columns), values)
    task.checkpoint_version, task.checkpoint_depth = row[-2], row[-1] or 0
    return task


def read_task_data(task_id) -> dict:
    """The task's whole JSON (MergedData: `data` with its overlay where the engine keeps one)."""
    return Task.objects.filter(pk=task_id).values_list(MergedData(), flat=True).get()


def apply_move(move: Move) -> tuple[bool, int | None]:
    """Write the transition if the task is still where the caller read it. Returns whether it
    was written and the depth of the checkpoint written (None: none)."""
    if connection.vendor == "postgresql":
        return _apply_pg(move)
    return _apply_orm(move)


def _apply_pg(move: Move) -> tuple[bool, int | None]:
    with _prepared() as cursor:
        # Inside a caller's transaction the caller's commit decides, so the move is durable there.
        durable = move.durable or connection.in_atomic_block
        cursor.execute(PG_MOVES[move.supersede_approvals, move.checkpoint is not None, durable], move_params(move))
        moved, depth = cursor.fetchone()[:2]
    return moved == 1, depth


def move_params(move: Move) -> dict:
    """The parameters of the move's statement (PG_MOVES)."""
    params = {
        "task_id": move.task_id, "from_version": move.from_version, "from_state": move.from_state,
        "from_step": move.from_step,
        "to_state": move.to_state, "step": move.step, "changes": dumps_state(move.changes) if move.changes else None,
        "runnable": move.runnable, "lease_token": move.lease_token, "event": move.event, "actor": move.actor,
        "reason": move.reason, "trace_id": move.trace_id, "now": move.now, "cp_depth": None,
        "event_data": dumps(move.event_data or {}),
    }
    cp = move.checkpoint
    if cp is not None:
        depth = cp["depth"] if not _large_change(params["changes"]) else 0
        params |= {"cp_tenant": cp["tenant"], "cp_schema_version": cp["schema_version"], "cp_label": cp["label"],
                   "cp_cursor": cp["cursor"], "cp_depth": depth, "cp_pending": dumps(cp["pending"]),
                   "cp_external_refs": dumps(cp["external_refs"]),
                   "cp_delta": dumps(delta_body(move)) if depth else None, "cp_head": None, "cp_tail": None}
        if not depth and params["changes"] is not None:
            params["cp_head"], params["cp_tail"] = _spliced_around(move)
    else:
        params |= {"cp_head": None, "cp_tail": None}
    return params


_SPLICE = "agentstate:spliced-state"


def _spliced_around(move: Move) -> tuple[str | None, str | None]:
    """The full body's text before and after its state, so that head + the move's keys as sent +
    tail is the body of a snapshot whose data is those keys (see _WHOLE)."""
    body = delta_body(move)
    body["snapshot"] = {"state": move.to_state, "version": move.from_version + 1, "step": move.step,
                        "data": _SPLICE}
    parts = dumps_state(body).split(f'"{_SPLICE}"')
    return (parts[0], parts[1]) if len(parts) == 2 else (None, None)  # a cursor or ref that says it: built by the server


def _large_change(changes_text: str | None) -> bool:
    return changes_text is not None and len(changes_text) >= FULL_FROM_CHANGES


def delta_body(move: Move) -> dict:
    cp = move.checkpoint
    return {"snapshot": {"state": move.to_state, "version": move.from_version + 1, "step": move.step,
                         "delta": move.changes},
            "cursor": cp["cursor"], "pending": cp["pending"], "external_refs": cp["external_refs"],
            "tenant": cp["tenant"], "schema_version": cp["schema_version"]}


def full_body(move: Move) -> dict:
    body = delta_body(move)
    body["snapshot"] = {"state": move.to_state, "version": move.from_version + 1, "step": move.step,
                        "data": move.data}
    return body


def _apply_orm(move: Move) -> tuple[bool, int | None]:
    with transaction.atomic():
        rows = Task.objects.filter(pk=move.task_id, version=move.from_version, state=move.from_state,
                                   step=move.from_step)
        if move.lease_token is not None:
            rows = rows.filter(lease_token=move.lease_token)
        moved = rows.update(state=move.to_state, version=move.from_version + 1, step=move.step, data=move.data,
                            data_overlay={},
                            runnable=move.runnable, updated_at=move.now)
        if not moved:
            return False, None
        version = move.from_version + 1
        # The event is of the task's trace; the caller's stands in for a task that has none.
        trace_id = Task.objects.filter(pk=move.task_id).values_list("trace_id", flat=True).first() or move.trace_id
        TaskEvent.objects.create(task_id=move.task_id, actor=move.actor, event=move.event,
                                 from_state=move.from_state, to_state=move.to_state, version=version,
                                 reason=move.reason, trace_id=trace_id, data=move.event_data or {})
        if move.supersede_approvals:
            Approval.objects.filter(task_id=move.task_id, status=Approval.Status.PENDING).update(
                status=Approval.Status.SUPERSEDED)
        if move.checkpoint is None:
            return True, None
        cp = move.checkpoint
        whole = (not cp["depth"] or len(dumps(move.data)) < DELTA_ABOVE
                 or _large_change(dumps(move.changes) if move.changes else None))
        body = dumps(full_body(move) if whole else delta_body(move))
        parent_id = Checkpoint.objects.filter(task_id=move.task_id).order_by("-version").values_list(
            "id", flat=True).first()
        Checkpoint.objects.create(task_id=move.task_id, version=version, parent_id=parent_id, tenant=cp["tenant"],
                                  schema_version=cp["schema_version"], label=cp["label"], cursor=cp["cursor"],
                                  depth=0 if whole else cp["depth"], body=body,
                                  checksum=hashlib.sha256(body.encode()).hexdigest())
    return True, 0 if whole else cp["depth"]


@dataclass(frozen=True)
class CheckpointRecord:
    """A checkpoint read without the ORM, with its whole state: `snapshot["data"]` is the full
    snapshot it descends from with every delta up to this one merged in. `chain` holds the stored
    texts and checksums it was built from (one for a full checkpoint)."""
    id: int
    task_id: object
    version: int
    parent_id: int | None
    tenant: str
    schema_version: int
    label: str
    cursor: str
    depth: int
    checksum: str
    created_at: object
    snapshot: dict
    pending: list
    external_refs: list
    chain: tuple


_CP_COLUMNS = ("id", "task_id", "version", "parent_id", "tenant", "schema_version", "label", "cursor", "depth",
               "checksum", "created_at", "body")
# The newest (or the named version's) checkpoint and the links back to its full snapshot, which
# a walk down the (task, -version) index finds within FULL_EVERY rows. The bounds are scalar
# subqueries (each one index probe, computed once), so the chain is read by an index range
# whatever the statistics say: a join with the target row let the planner, on statistics taken
# when the task had one checkpoint, rescan every checkpoint of the task once per row (3.4 ms after
# 1,200 moves, growing with each). One statement per form, so each keeps one prepared plan.
_CP_TARGET = f"SELECT {{column}} FROM {_C} WHERE task_id = %(task_id)s {{version}} ORDER BY version DESC LIMIT 1"
_CP_CHAIN = f"""
SELECT {', '.join(_CP_COLUMNS)} FROM {_C}
 WHERE task_id = %(task_id)s
   AND version BETWEEN ({_CP_TARGET.replace("{column}", "version - depth")})
                   AND ({_CP_TARGET.replace("{column}", "version")})
 ORDER BY version"""
_CP_LATEST = _CP_CHAIN.replace("{version}", "")
_CP_OF_VERSION = _CP_CHAIN.replace("{version}", "AND version = %(version)s")
_CP_OF_ID = _CP_CHAIN.replace("{version}", "AND id = %(id)s")


def _cursor():
    return _prepared() if connection.vendor == "postgresql" else connection.cursor()


class BrokenChain(Exception):
    """A delta checkpoint whose full snapshot is missing: retention must never allow it."""


def read_checkpoint(task_id, version: int | None = None) -> CheckpointRecord | None:
    links = read_checkpoint_links(task_id, version=version)
    return build_record(links) if links else None


def read_checkpoint_links(task_id, *, version: int | None = None, checkpoint_id: int | None = None) -> list[dict]:
    """The stored rows of the task's newest checkpoint (or the one of `version` or `checkpoint_id`)
    and of the chain back to its full snapshot, oldest first, as they are: nothing is verified here."""
    with _cursor() as cursor:
        if checkpoint_id is not None:
            cursor.execute(_CP_OF_ID, {"task_id": _pk(task_id), "id": checkpoint_id})
        elif version is not None:
            cursor.execute(_CP_OF_VERSION, {"task_id": _pk(task_id), "version": version})
        else:
            cursor.execute(_CP_LATEST, {"task_id": _pk(task_id)})
        rows = [dict(zip(_CP_COLUMNS, row)) for row in cursor.fetchall()]
    for row in rows:
        row["created_at"] = _aware(row["created_at"])
    return rows


def _aware(value):
    """A raw cursor on SQLite gives a naive UTC time (or its text); PostgreSQL an aware one."""
    if isinstance(value, str):
        value = datetime.datetime.fromisoformat(value)
    if value is not None and timezone.is_naive(value):
        value = value.replace(tzinfo=datetime.timezone.utc)
    return value


def build_record(links: list[dict], contents: list[dict] | None = None) -> CheckpointRecord:
    """Merge a chain (full snapshot first, then its deltas in order) into one record. `contents`:
    the bodies already parsed, in the same order (a large snapshot is then not parsed twice)."""
    if contents is None:
        contents = [loads(link["body"]) for link in links]
    if links[0]["depth"] != 0 or [link["depth"] for link in links] != list(range(len(links))):
        raise BrokenChain(f"Checkpoint chain of task {links[0]['task_id']} does not start at a full snapshot.")
    data = dict(contents[0]["snapshot"]["data"])
    for content in contents[1:]:
        data.update(content["snapshot"]["delta"])
    last, content = links[-1], contents[-1]
    snapshot = {k: v for k, v in content["snapshot"].items() if k != "delta"} | {"data": data}
    values = {k: v for k, v in last.items() if k != "body"}
    values["task_id"] = Task._meta.pk.to_python(values["task_id"])
    return CheckpointRecord(**values, snapshot=snapshot, pending=content["pending"],
                            external_refs=content["external_refs"],
                            chain=tuple((link["body"], link["checksum"]) for link in links))


def record_is_intact(record: CheckpointRecord) -> bool:
    if any(hashlib.sha256(body.encode()).hexdigest() != checksum for body, checksum in record.chain):
        return False
    rebuilt = build_record([{"id": record.id, "task_id": record.task_id, "version": record.version,
                             "parent_id": record.parent_id, "tenant": record.tenant,
                             "schema_version": record.schema_version, "label": record.label,
                             "cursor": record.cursor, "depth": n, "checksum": checksum, "created_at": record.created_at,
                             "body": body} for n, (body, checksum) in enumerate(record.chain)])
    return (rebuilt.snapshot, rebuilt.pending, rebuilt.external_refs, rebuilt.tenant) == (
        record.snapshot, record.pending, record.external_refs, loads(record.chain[-1][0])["tenant"])


# A lease claim and the task it claims, in one statement (leases.lease_claim_task): the row is
# locked by the subquery or skipped when someone holds its lock (a person's move, another claim),
# and the UPDATE's RETURNING is the task as it stands under that lock, new token included.
_TASK_FIELDS = tuple(Task._meta.concrete_fields)
_CLAIM = f"""
UPDATE {_T} SET leased_by = %s, lease_until = %s, lease_token = lease_token + 1
 WHERE id = (SELECT id FROM {_T} WHERE id = %s AND (lease_until IS NULL OR lease_until < %s)
              FOR NO KEY UPDATE SKIP LOCKED)
RETURNING {', '.join(field.column for field in _TASK_FIELDS)}"""


def claim_task(task_id, *, worker: str, until, now) -> Task | None:
    """PostgreSQL: claim the task's lease if it is free and its row unlocked, and read the whole
    task (its JSON folded, its trace id) in the same statement. None: held or locked."""
    with _prepared() as cursor:
        cursor.execute(_CLAIM, [worker, until, _pk(task_id), now])
        row = cursor.fetchone()
    if row is None:
        return None
    values = []
    for field, value in zip(_TASK_FIELDS, row):
        column = field.get_col(_T)
        for converter in (*connection.ops.get_db_converters(column), *field.get_db_converters(connection)):
            value = converter(value, column, connection)
        values.append(value)
    return Task.from_db(connection.alias, [field.attname for field in _TASK_FIELDS], values)
