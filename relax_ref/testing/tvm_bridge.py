"""Differential testing of TVM's passes against the reference interpreter (needs the ``tvm`` extra).

The pipeline for one program and pass sequence:

1. print the generated module in the installed TVM's dialect (``mod.script(dialect=installed_tvm_dialect())``);
2. in a worker process (TVM can abort or hang), read it with ``tvm.script.from_source``, apply
   ``tvm.relax.transform.<Name>()`` for each pass, check ``relax.analysis.well_formed`` after each one
   and print the module (``mod.script()``) after each one;
3. read every printed module back with relax-ref's parser and run the reference interpreter on it;
   the results must match the original program's (:mod:`relax_ref.testing.oracle`).

:class:`TvmPassRunner` is the client side: ``run(text, passes) -> TvmReply``; it restarts the worker
after a crash and enforces a time limit per request (a hang is the ``timeout`` symptom, a dead worker
a ``crash``). :func:`check_case_tvm` produces an :class:`~relax_ref.testing.oracle.Outcome` like
:func:`~relax_ref.testing.oracle.check_case`, with two extra symptoms that are *not* pass bugs:
``tvm-load`` (TVM cannot read the text relax-ref printed) and ``read-back`` (relax-ref cannot read,
normalize or check what TVM printed, although TVM calls it well formed) -- both are reported
separately, since either side may be at fault.

``python -m relax_ref.testing.tvm_bridge --worker`` is the worker's entry point (JSON lines on
stdin/stdout; its own stdout is redirected to stderr so that TVM's output cannot corrupt the
channel).
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

from ..errors import RelaxError
from ..script.dialect import installed_tvm_dialect
from .oracle import Outcome, expected_results, run_entry, signature_problem
from .compare import compare
from .program import Program

_IMPORT_LINE = re.compile(r"^(from tvm\.script import .*|import tvm.*)$", re.M)

#: TVM passes that take no required argument, usable by name in a sequence
TVM_PASSES = (
    "LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR", "DeadCodeElimination", "CanonicalizeBindings",
    "ConvertToDataflow", "ToNonDataflow", "RemovePurityChecking", "CallTIRRewrite", "StaticPlanBlockMemory",
    "FoldConstant", "LambdaLift", "RewriteDataflowReshape", "DecomposeOpsForInference", "EliminateCommonSubexpr",
    "Normalize",
)


@dataclass
class TvmReply:
    """``status``: ``ok`` | ``load-error`` | ``crash`` | ``ill-formed`` | ``timeout`` | ``died``;
    ``texts``: the module printed after each pass that completed; ``at``: the failing pass index."""

    status: str
    texts: List[str] = field(default_factory=list)
    at: Optional[int] = None
    message: str = ""
    detail: str = ""


# ---------------------------------------------------------------------------------------------------
# Worker side
# ---------------------------------------------------------------------------------------------------


def _serve() -> None:  # pragma: no cover - runs in the worker process
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    import tvm
    from tvm import relax

    def send(msg: dict) -> None:
        proto.write(json.dumps(msg) + "\n")
        proto.flush()

    send({"ready": True, "version": tvm.__version__})
    for line in sys.stdin:
        send(_handle(tvm, relax, json.loads(line), send))


def _handle(tvm, relax, req, send) -> dict:  # pragma: no cover - runs in the worker process
    """Apply the passes, streaming ``{"text": ...}`` after each one, and return the final status."""
    source = _IMPORT_LINE.sub("", req["text"])
    try:
        mod = tvm.script.from_source(source)
    except Exception as err:  # noqa: BLE001 - every TVM error is reported
        return {"status": "load-error", "message": f"{type(err).__name__}: {err}"[:4000],
                "detail": traceback.format_exc()[-8000:]}
    for i, name in enumerate(req["passes"]):
        try:
            mod = getattr(relax.transform, name)()(mod)
        except Exception as err:  # noqa: BLE001
            return {"status": "crash", "at": i, "message": f"{type(err).__name__}: {err}"[:4000],
                    "detail": traceback.format_exc()[-8000:]}
        try:
            relax.analysis.well_formed(mod)  # TVM 0.25: raises on the first violation
            ok, wf_error = True, ""
        except Exception as err:  # noqa: BLE001
            ok, wf_error = False, f"{type(err).__name__}: {err}"[:4000]
        try:
            text = mod.script(show_meta=True)
        except Exception as err:  # noqa: BLE001
            return {"status": "crash", "at": i,
                    "message": f"printing the output failed: {type(err).__name__}: {err}"[:4000]}
        send({"text": text})
        if not ok:
            return {"status": "ill-formed", "at": i, "message": wf_error}
    return {"status": "ok"}


# ---------------------------------------------------------------------------------------------------
# Client side
# ---------------------------------------------------------------------------------------------------


class TvmPassRunner:
    """A client of the worker process (see the module docstring)."""

    def __init__(self, timeout: float = 60.0, python: Optional[str] = None) -> None:
        self.timeout = timeout
        self.python = python or sys.executable
        self.proc: Optional[subprocess.Popen] = None
        self.version = "?"
        self.restarts = 0
        self._buf = b""

    def _start(self) -> None:
        self.proc = subprocess.Popen([self.python, "-m", "relax_ref.testing.tvm_bridge", "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     bufsize=0)
        self._buf = b""
        hello = self._read(120.0)
        if hello is None or not hello.get("ready"):
            self.close()
            raise RelaxError("the TVM worker did not start (is the tvm extra installed?)")
        self.version = hello.get("version", "?")

    def _read(self, timeout: float) -> Optional[dict]:
        """The next JSON line from the worker, None after ``timeout`` seconds, or ``{"status":
        "died"}`` at end of file. Lines are split here from raw ``os.read`` chunks: a buffered
        ``readline`` would hide already-received lines from ``select``."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return {"status": "died"}
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return json.loads(line.decode("utf-8"))

    def close(self) -> None:
        if self.proc is not None:
            try:
                self.proc.kill()
                self.proc.wait(timeout=10)
            except Exception:  # noqa: BLE001 - best effort: the process may already be gone
                pass
            self.proc = None

    def run(self, text: str, passes: Sequence[str]) -> TvmReply:
        if self.proc is None or self.proc.poll() is not None:
            if self.proc is not None:
                self.restarts += 1
            self._start()
        assert self.proc is not None and self.proc.stdin is not None
        try:
            data = (json.dumps({"text": text, "passes": list(passes)}) + "\n").encode("utf-8")
            while data:
                data = data[self.proc.stdin.write(data):]
        except BrokenPipeError:
            self.close()
            return TvmReply("died", message="the TVM worker exited before the request")
        texts: List[str] = []
        deadline = time.monotonic() + self.timeout
        while True:
            msg = self._read(max(0.0, deadline - time.monotonic()))
            if msg is None:
                self.close()
                return TvmReply("timeout", texts, len(texts), f"TVM did not answer within {self.timeout} s")
            if msg.get("status") == "died":
                code = self.proc.wait(timeout=10) if self.proc is not None else None
                self.proc = None
                return TvmReply("died", texts, len(texts), f"the TVM worker died (exit status {code})")
            if "text" in msg:
                texts.append(msg["text"])
                continue
            return TvmReply(msg["status"], texts, msg.get("at"), msg.get("message", ""), msg.get("detail", ""))

    def __enter__(self) -> "TvmPassRunner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _parse(text: str):
    from ..script.parser import parse

    return parse(text)


def check_case_tvm(program: Program, passes: Sequence[str], runner: TvmPassRunner, *,
                   sizes: Sequence[int] = (1, 3), seed: int = 0, tolerances=None,
                   signature: bool = True) -> Outcome:
    """The TVM counterpart of :func:`~relax_ref.testing.oracle.check_case` (see the module docstring)."""
    names = tuple(passes)
    start = time.perf_counter()
    expected = expected_results(program, sizes, seed)

    def out(symptom, at, message, detail="", after=None, **kw) -> Outcome:
        return Outcome(symptom, names, program.mod, at, message, detail, after,
                       seconds=time.perf_counter() - start, entry=program.entry, **kw)

    reply = runner.run(program.mod.script(dialect=installed_tvm_dialect()), names)
    if reply.status == "load-error":
        return out("tvm-load", 0, reply.message, reply.detail)
    for i, text in enumerate(reply.texts):
        if reply.status == "ill-formed" and i == reply.at:
            return out("ill-formed", i, reply.message, text)
        try:
            mod = _parse(text)
        except RelaxError as err:
            return out("read-back", i, f"{type(err).__name__}: {err.message}", f"{err}\n\n{text}")
        except Exception as err:  # noqa: BLE001 - a parser crash on TVM's text is still a read-back failure
            return out("read-back", i, f"{type(err).__name__}: {err}", traceback.format_exc() + "\n\n" + text)
        if signature:
            why = signature_problem(program.mod, mod)
            if why is not None:
                return out("signature", i, why, after=mod)
        for size, inputs, res in expected:
            try:
                got = run_entry(mod, program.entry, inputs)
            except Exception as err:  # noqa: BLE001 - the original ran, so a failure here is a difference
                return out("mismatch", i, f"the output raised {type(err).__name__}: {err}",
                           traceback.format_exc(), after=mod, size=size, inputs=inputs, expected=res)
            diff = compare(res, got, tolerances=tolerances)
            if diff is not None:
                return out("mismatch", i, diff, after=mod, size=size, inputs=inputs, expected=res, actual=got)
    if reply.status in ("crash", "died"):
        return out("crash", reply.at if reply.at is not None else len(reply.texts), reply.message, reply.detail)
    if reply.status == "timeout":
        return out("timeout", len(reply.texts), reply.message)
    if reply.status == "ill-formed":
        return out("ill-formed", reply.at, reply.message)
    return Outcome("ok", names, program.mod, seconds=time.perf_counter() - start, entry=program.entry)


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--worker"]:
        _serve()
    else:
        sys.exit("usage: python -m relax_ref.testing.tvm_bridge --worker")
