"""The one place chat touches governed memory (DESIGN §8), kept tiny on purpose.

The store is `agentstate.memory` (`memory_retrieve` in its services or retrieval module,
`memory_propose` in services). Without it, chat runs without memory: nothing is retrieved
and nothing can be proposed."""
import importlib

MODULES = ("agentstate.memory.services", "agentstate.memory.retrieval")


def _function(name: str):
    for module_name in MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            # Only the store's absence is tolerated; a broken import inside it must surface.
            if exc.name not in (module_name, "agentstate.memory"):
                raise
            continue
        if hasattr(module, name):
            return getattr(module, name)
    return None


def retrieve(user, *, task, turn) -> list[dict]:
    """The entries in scope for this user and task: dicts of id, version, scope, kind, content.
    The store records each retrieval as a use on the task and turn."""
    memory_retrieve = _function("memory_retrieve")
    if memory_retrieve is None:
        return []
    return [{"id": e.id, "version": e.version, "scope": str(e.scope), "kind": str(e.kind), "content": e.content}
            for e in memory_retrieve(user, task=task, turn=turn, limit=20)]


def propose(user, *, content: str, kind: str, session, turn):
    """Propose a standing entry about `user` (status `proposed` until they or an admin confirm
    it); its source is the turn they said it in. Returns its id, or None without a store."""
    memory_propose = _function("memory_propose")
    if memory_propose is None:
        return None
    entry = memory_propose(by=user, content=content, kind=kind, scope="user", subject=user.get_username(),
                           turn=turn, task=session.task)
    return getattr(entry, "id", entry)
