"""What the engine and the app say, as a code and its parameters: rendered when read, in the reader's language.

A `Said` is stored as it is (`{"code": ..., "params": {...}}`) and turned into words only when
someone reads it. The engine knows codes but no words: the app plugs in a renderer
(`use_renderer`), as it plugs in its label tables (agentstate.codewords). Text that cannot be
coded is kept whole as `quoted` and shown as quoted text, never dropped.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

QUOTED = "quoted"

_RENDERER: list[Callable[[Said, str | None], str]] = []
_LOGGER: list[Callable[[Said], str]] = []


def _frozen(value):
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): _frozen(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


def _plain(value):
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Said:
    """One thing said: a stable `code` and the parameters its words need (JSON values only)."""
    code: str
    params: Mapping = field(default_factory=dict)

    def __post_init__(self):
        if not self.code:
            raise ValueError("A Said needs a code.")
        object.__setattr__(self, "params", _frozen(self.params or {}))
        json.dumps(self.as_json())  # refuse what could not be stored

    def as_json(self) -> dict:
        return {"code": self.code, "params": _plain(self.params)}

    @classmethod
    def of(cls, value) -> Said | None:
        """A Said from its JSON (or a Said, or None); a dict without a code is None."""
        if value is None or isinstance(value, Said):
            return value
        if isinstance(value, Mapping) and value.get("code"):
            return cls(str(value["code"]), value.get("params") or {})
        return None

    @property
    def is_quoted(self) -> bool:
        return self.code == QUOTED

    def render(self, language: str | None = None) -> str:
        return render(self, language)

    def __str__(self) -> str:
        """English, for logs and the audit column: the app's log line when plugged in, else the code."""
        return _LOGGER[0](self) if _LOGGER else render(self, "en")


def say(code: str, **params) -> Said:
    """`say("award", supplier="Acme", total="36750.00")`."""
    return Said(code, params)


def quote(text: str) -> Said:
    """Text nobody could code, kept whole and shown as a quotation."""
    return Said(QUOTED, {"text": str(text or "")})


def use_renderer(renderer: Callable[[Said, str | None], str], log: Callable[[Said], str] | None = None) -> None:
    """The app's `renderer(said, language)`: the words for a Said (language None: the active one);
    `log(said)`: its line for logs and the audit column (str(said))."""
    _RENDERER[:] = [renderer]
    _LOGGER[:] = [log] if log is not None else []


def render(said: Said, language: str | None = None) -> str:
    if _RENDERER:
        return _RENDERER[0](said, language)
    if said.is_quoted:
        return str(said.params.get("text", ""))
    params = ", ".join(f"{k}={v}" for k, v in _plain(said.params).items())
    return f"{said.code}({params})" if params else said.code


EVENT_KEY = "said"  # where an event row keeps its reason as a code (TaskEvent.data["said"])


def event_fields(reason: Said | str, data: dict | None = None) -> tuple[str, dict]:
    """An event's `reason` column (English, for logs and the audit) and its `data`, holding the Said."""
    if isinstance(reason, Said):
        return str(reason), {**(data or {}), EVENT_KEY: reason.as_json()}
    return reason or "", dict(data or {})


def of_event(event) -> Said | None:
    """What an event row says, as stored: its Said; None for a row written before reasons were codes."""
    return Said.of((getattr(event, "data", None) or {}).get(EVENT_KEY))
