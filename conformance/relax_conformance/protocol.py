"""The subprocess protocol (``--impl cmd:"..."``), version 1: JSON lines over stdin/stdout.

The runner starts the command once per worker thread and keeps it running. Each request is one JSON
object on one line of the implementation's stdin; the implementation answers each with one JSON
object on one line of its stdout (anything else it prints must go to stderr). Tensors travel in npz
files whose paths the request names. The full description, with examples, is in FORMAT.md,
section "Subprocess protocol".
"""

from __future__ import annotations

import json
from typing import Any

PROTOCOL_VERSION = 1


class ProtocolError(RuntimeError):
    """The implementation broke the protocol (bad JSON, a missing field, an unexpected reply)."""


def dumps(msg: dict) -> bytes:
    return (json.dumps(msg, separators=(",", ":"), allow_nan=True) + "\n").encode("utf-8")


def loads(line: bytes | str) -> dict:
    try:
        msg = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        text = line if isinstance(line, str) else line.decode("utf-8", "replace")
        raise ProtocolError(f"not a JSON line: {text[:200]!r} ({err})") from None
    if not isinstance(msg, dict):
        raise ProtocolError(f"expected a JSON object, got {type(msg).__name__}")
    return msg


def error_reply(kind: str, message: str, site: str | None = None) -> dict:
    err = {"kind": kind, "message": message}
    if site is not None:
        err["site"] = site
    return {"ok": False, "error": err}


def unsupported_reply(feature: str, message: str = "") -> dict:
    return {"ok": False, "unsupported": {"feature": feature, "message": message}}


def field(msg: dict, name: str, typ: type | tuple, where: str) -> Any:
    v = msg.get(name)
    if not isinstance(v, typ):
        raise ProtocolError(f"{where}: field {name!r} missing or of the wrong type ({v!r})")
    return v


__all__ = ["PROTOCOL_VERSION", "ProtocolError", "dumps", "loads", "error_reply", "unsupported_reply", "field"]
