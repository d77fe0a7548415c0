"""Loading a checkpoint: the one reader of checkpoints that anyone acting on them calls (DESIGN §13).

1. The checkpoint and its delta chain back to the full snapshot are read in one query.
2. Every link is verified before anything in it is used: its stored text hashes to its
   checksum and names the row's own version and tenant; the tenant is the caller's (and the
   task's); the chain runs unbroken from a full snapshot.
3. The state is merged along the chain and upgraded to the kind's schema version, link by link,
   oldest upgrade first; data of a newer schema than this code knows is refused.
A refusal raises an error with a code and, for a failed verification, leaves an event on the
task (`checkpoint.refused`); nothing from a refused checkpoint is returned.
"""
import dataclasses
import hashlib

from django.db import transaction

from . import sql
from .actors import Actor
from .errors import (CheckpointChainBroken, CheckpointForeignTenant, CheckpointNotFound, CheckpointRefused,
                     CheckpointTampered)
from .kinds import get_kind
from .said import event_fields, say
from .models import Task, TaskEvent

REFUSED_EVENT = "checkpoint.refused"
# A checkpoint written while its task had no tenant yet (an unscoped draft) belongs to that task alone.
UNSCOPED = ""


def checkpoint_load(task: Task, checkpoint_id: int | None = None, *, tenant: str, version: int | None = None,
                    actor=None) -> sql.CheckpointRecord:
    """The task's checkpoint `checkpoint_id` (or of `version`; default: the newest), verified and
    upgraded to the kind's current schema. `tenant` is the caller's: a checkpoint of another tenant
    is refused even when it hangs off this task. `actor` names who asked, on the refusal's event."""
    links = sql.read_checkpoint_links(task.pk, version=version, checkpoint_id=checkpoint_id)
    if not links:
        which = f"#{checkpoint_id}" if checkpoint_id is not None else (f"v{version}" if version else "at all")
        raise CheckpointNotFound(f"This task has no checkpoint {which}.", checkpoint=checkpoint_id, version=version)
    try:
        contents = _verified(task, links, tenant)
    except CheckpointRefused as refused:
        _record_refusal(task, links[-1], refused, actor)
        raise
    return _merged(task, links, contents)


def checkpoint_latest(task: Task, *, tenant: str, actor=None) -> sql.CheckpointRecord:
    """The task's newest checkpoint, verified and upgraded (see checkpoint_load)."""
    return checkpoint_load(task, tenant=tenant, actor=actor)


def _verified(task: Task, links: list[dict], tenant: str) -> list[dict]:
    target = links[-1]
    if tenant != task.tenant:
        raise CheckpointForeignTenant(
            f"Checkpoint v{target['version']} was asked for by tenant {tenant!r}, but the task belongs to "
            f"{task.tenant!r}; it was not used.", checkpoint=target["id"], version=target["version"],
            said=say("checkpoint_version_foreign", version=target["version"]))
    depths = [link["depth"] for link in links]
    if depths != list(range(len(links))):
        raise CheckpointChainBroken(
            f"Checkpoint v{target['version']} is a delta whose chain back to a full snapshot is incomplete "
            f"(depths {depths}); it was not used.", checkpoint=target["id"], version=target["version"],
            said=say("checkpoint_version_incomplete", version=target["version"]))
    return [_verified_link(link, tenant) for link in links]


def _verified_link(link: dict, tenant: str) -> dict:
    body, version = link["body"], link["version"]
    if hashlib.sha256(body.encode()).hexdigest() != link["checksum"]:
        raise CheckpointTampered(f"Checkpoint v{version} does not match its checksum: its stored text was changed "
                                 "after it was written; it was not used.", checkpoint=link["id"], version=version,
                                 said=say("checkpoint_version_tampered", version=version))
    content = sql.loads(body)
    if (content["snapshot"].get("version"), content["tenant"], content["schema_version"]) != (
            version, link["tenant"], link["schema_version"]):
        raise CheckpointTampered(f"Checkpoint v{version} says another version, tenant or schema than its row; "
                                 "it was not used.", checkpoint=link["id"], version=version,
                                 said=say("checkpoint_version_tampered", version=version))
    if content["tenant"] not in (tenant, UNSCOPED):
        raise CheckpointForeignTenant(f"Checkpoint v{version} belongs to tenant {content['tenant']!r}, not "
                                      f"{tenant!r}; it was not used.", checkpoint=link["id"], version=version,
                                      said=say("checkpoint_version_foreign", version=version))
    return content


def _merged(task: Task, links: list[dict], contents: list[dict]) -> sql.CheckpointRecord:
    """The chain's state merged onto its full snapshot; each delta applies to data already in
    the shape of the schema it was written at, and the result is in the kind's current shape."""
    kind = get_kind(task.kind)
    for link in links:
        kind.check_schema(link["schema_version"])
    data, at = dict(contents[0]["snapshot"]["data"]), links[0]["schema_version"]
    for link, content in zip(links[1:], contents[1:]):
        data, at = kind.upgrade(data, at, link["schema_version"]), link["schema_version"]
        data.update(content["snapshot"]["delta"])
    record = sql.build_record(links, contents)
    return dataclasses.replace(record, snapshot={**record.snapshot, "data": kind.upgrade(data, at)},
                               schema_version=kind.schema_version)


def _record_refusal(task: Task, link: dict, refused: CheckpointRefused, actor):
    name = Actor.of(actor).name if actor is not None else "runtime"
    # Its own savepoint: the refusal is on the record even when the caller goes on.
    # The reason column keeps the refusal's English with its detail; the timeline reads its code.
    _, data = event_fields(refused.said, {"checkpoint": link["id"], "checkpoint_version": link["version"],
                                          "code": refused.code})
    with transaction.atomic():
        TaskEvent.objects.create(task_id=task.pk, actor=name, event=REFUSED_EVENT, from_state=task.state,
                                 to_state=task.state, version=task.version, reason=str(refused), data=data)
