"""Serve an in-process adapter over the subprocess protocol.

``python -m relax_conformance.worker IMPL`` (IMPL: ``ref``, ``jax``, ``tvm`` or ``MODULE:CLASS``) reads
protocol requests on stdin and answers on stdout. The runner runs every Python adapter this way
(unless ``--in-process``), so that an implementation that kills its process (a signal, an abort in
native code) or hangs fails only the case at hand. An adapter that cannot be created ends the worker
with a one-line message on stderr and exit status 2, which the runner reports. Before serving, the worker
moves the process's own stdout to stderr, so that whatever the implementation prints (``R.print``,
warnings from native code) cannot corrupt the protocol channel.
"""

from __future__ import annotations

import os
import sys
import traceback
import types
from pathlib import Path
from typing import IO, Any

from .adapter import Adapter, LoadError, RunError, Unsupported
from .npz import read_npz, write_npz
from .protocol import PROTOCOL_VERSION, ProtocolError, dumps, error_reply, loads, unsupported_reply
from .values import decode, encode


def _case_info(msg: dict) -> Any:
    cid = str(msg.get("case", ""))
    category, _, name = cid.rpartition("/")
    return types.SimpleNamespace(id=cid, category=category, name=name, path=Path(str(msg.get("path", ""))),
                                 entry=str(msg.get("entry", "main")), spelling=str(msg.get("spelling", "tvm")),
                                 tags=tuple(msg.get("tags", ())), requires=tuple(msg.get("requires", ())))


def handle_request(adapter: Adapter, handles: dict, msg: dict) -> dict:
    """Answer one protocol request (everything but ``quit``)."""
    op = msg.get("op")
    if op == "hello":
        reply = {"ok": True, "protocol": PROTOCOL_VERSION, "name": getattr(adapter, "name", "adapter"),
                 "unsupported_features": sorted(getattr(adapter, "unsupported_features", ()))}
        version = getattr(adapter, "version", None)
        if isinstance(version, str) and version:
            reply["version"] = version
        return reply
    if op == "load":
        text = msg.get("text")
        if not isinstance(text, str):
            raise ProtocolError("load: 'text' must be a string")
        case = _case_info(msg)
        try:
            h = adapter.load(text, case)
        except LoadError as err:
            return error_reply(err.kind, err.message, err.site)
        except Unsupported as u:
            return unsupported_reply(u.feature, u.message)
        key = f"h{len(handles) + 1}"
        while key in handles:
            key += "_"
        handles[key] = h
        return {"ok": True, "handle": key}
    if op == "run":
        key = msg.get("handle")
        if key not in handles:
            raise ProtocolError(f"run: unknown handle {key!r}")
        specs = msg.get("args")
        if not isinstance(specs, list):
            raise ProtocolError("run: 'args' must be a list")
        arrays = read_npz(msg["args_file"]) if msg.get("args_file") else {}
        args = [decode(s, arrays, f"args[{i}]") for i, s in enumerate(specs)]
        try:
            out = adapter.run(handles[key], str(msg.get("entry", "main")), args)
        except RunError as err:
            return error_reply(err.kind, err.message, err.site)
        except Unsupported as u:
            return unsupported_reply(u.feature, u.message)
        out_arrays: dict = {}
        spec = encode(out, "r", out_arrays, inline_scalars=True)
        if out_arrays:
            write_npz(msg["out_file"], out_arrays)
        return {"ok": True, "result": spec}
    if op == "release":
        h = handles.pop(msg.get("handle"), None)
        if h is not None:
            adapter.release(h)
        return {"ok": True}
    raise ProtocolError(f"unknown op {op!r}")


def serve(adapter: Adapter, infile: IO[bytes], outfile: IO[bytes]) -> None:
    """The request loop: one JSON line in, one JSON line out, until ``quit`` or end of input."""
    handles: dict = {}
    for line in infile:
        if not line.strip():
            continue
        try:
            msg = loads(line)
            if msg.get("op") == "quit":
                break
            reply = handle_request(adapter, handles, msg)
        except Exception:  # noqa: BLE001 - report adapter bugs to the runner instead of dying
            reply = {"ok": False, "internal": traceback.format_exc(limit=8)}
        outfile.write(dumps(reply))
        outfile.flush()
    adapter.close()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m relax_conformance.worker IMPL   (ref | jax | tvm | MODULE:CLASS)", file=sys.stderr)
        return 2
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    from .adapters import ImplSpecError, make_inprocess

    try:
        adapter = make_inprocess(argv[0])()
    except ImplSpecError as err:
        print(f"relax_conformance.worker: {err}", file=sys.stderr)
        return 2
    except Exception as err:  # noqa: BLE001 - whatever the adapter's constructor raises, say it in one line
        print(f"relax_conformance.worker: cannot create the adapter {argv[0]!r}: {type(err).__name__}: {err}",
              file=sys.stderr)
        return 2
    serve(adapter, sys.stdin.buffer, proto_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
