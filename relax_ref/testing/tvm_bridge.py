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

:func:`tvm_pass` turns a TVM pass -- a name with JSON arguments, or a pass object -- into a relax-ref
pass (:class:`TvmPass`), so that ``check_pass`` and the other oracles check TVM's passes directly:
the module goes to TVM as text and comes back as text, with the two extra symptoms above raised as
:class:`TvmPassError`.

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


def _make_pass(tvm, relax, item, objects):  # pragma: no cover - runs in the worker process
    """A pass from a request item: a name (``"FuseOps"``), ``{"name", "args", "kwargs"}`` (a
    constructor of ``tvm.relax.transform`` called with JSON arguments) or ``{"object": k}`` (the
    k-th pass object the forked worker inherited)."""
    if isinstance(item, str):
        return getattr(relax.transform, item)()
    if "object" in item:
        return objects[item["object"]]
    ctor = getattr(relax.transform, item["name"], None) or getattr(tvm.transform, item["name"])
    return ctor(*item.get("args", ()), **item.get("kwargs", {}))


def _handle(tvm, relax, req, send, objects=()) -> dict:  # pragma: no cover - runs in the worker process
    """Apply the passes, streaming ``{"text": ...}`` after each one, and return the final status; a
    request with ``compare`` instead compares the two texts under TVM's structural equality."""
    if "compare" in req:
        return _compare(tvm, req["text"], req["compare"], req.get("select") or [None, None],
                        bool(req.get("map_free_vars")))
    source = _IMPORT_LINE.sub("", req["text"])
    try:
        mod = tvm.script.from_source(source)
    except Exception as err:  # noqa: BLE001 - every TVM error is reported
        return {"status": "load-error", "message": f"{type(err).__name__}: {err}"[:4000],
                "detail": traceback.format_exc()[-8000:]}
    for i, item in enumerate(req["passes"]):
        try:
            mod = _make_pass(tvm, relax, item, objects)(mod)
        except Exception as err:  # noqa: BLE001
            return {"status": "crash", "at": i, "message": f"{type(err).__name__}: {err}"[:4000],
                    "detail": traceback.format_exc()[-8000:]}
        try:
            # TVM 0.25 raises on the first violation; a version that returns False says no more
            ok = relax.analysis.well_formed(mod) is not False
            wf_error = "" if ok else "relax.analysis.well_formed returned False"
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


def _compare(tvm, text: str, other: str, select, map_free_vars: bool) -> dict:  # pragma: no cover - worker side
    """``equal`` / ``different`` (with TVM's message) for two texts read by TVM (or the functions named
    by ``select`` of the modules they denote), or ``load-error``."""
    objs = []
    for which, t, name in (("first", text, select[0]), ("second", other, select[1])):
        try:
            obj = tvm.script.from_source(_IMPORT_LINE.sub("", t))
            objs.append(obj[name] if name else obj)
        except Exception as err:  # noqa: BLE001 - every TVM error is reported
            return {"status": "load-error", "message": f"{which}: {type(err).__name__}: {err}"[:4000]}
    try:
        tvm.ir.assert_structural_equal(objs[0], objs[1], map_free_vars=map_free_vars)
    except Exception as err:  # noqa: BLE001 - TVM reports a mismatch as an error
        return {"status": "different", "message": str(err)[:4000]}
    return {"status": "equal"}


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
        """Read ``text`` with TVM and apply ``passes`` (see the module docstring)."""
        return self._request({"text": text, "passes": list(passes)})

    def compare(self, text: str, other: str, select: Sequence[Optional[str]] = (None, None),
                map_free_vars: bool = False) -> TvmReply:
        """Whether TVM reads the two texts as structurally equal (or, where ``select`` names them, the
        functions of those names of the two modules): status ``equal``, ``different`` (TVM's message),
        ``load-error``, ``timeout`` or ``died``."""
        return self._request({"text": text, "compare": other, "select": list(select),
                              "map_free_vars": map_free_vars})

    def _request(self, request: dict) -> TvmReply:
        if self.proc is None or self.proc.poll() is not None:
            if self.proc is not None:
                self.restarts += 1
            self._start()
        assert self.proc is not None and self.proc.stdin is not None
        try:
            data = (json.dumps(request) + "\n").encode("utf-8")
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


# ---------------------------------------------------------------------------------------------------
# TVM passes as relax-ref passes
# ---------------------------------------------------------------------------------------------------


class _ForkedProc:
    """The subset of ``subprocess.Popen`` that :class:`TvmPassRunner` uses, for a forked child."""

    def __init__(self, pid: int, stdin, stdout) -> None:
        self.pid = pid
        self.stdin = stdin
        self.stdout = stdout
        self.returncode: Optional[int] = None

    def poll(self) -> Optional[int]:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        import signal

        if self.returncode is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def wait(self, timeout: Optional[float] = None) -> Optional[int]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None and (deadline is None or time.monotonic() < deadline):
            time.sleep(0.01)
        for f in (self.stdin, self.stdout):
            try:
                f.close()
            except OSError:
                pass
        return self.returncode


def _serve_forked(rfd: int, wfd: int, objects) -> None:  # pragma: no cover - runs in the forked child
    import tvm
    from tvm import relax

    proto = os.fdopen(wfd, "w")
    requests = os.fdopen(rfd, "r")

    def send(msg: dict) -> None:
        proto.write(json.dumps(msg) + "\n")
        proto.flush()

    send({"ready": True, "version": tvm.__version__})
    for line in requests:
        send(_handle(tvm, relax, json.loads(line), send, objects))


class ForkedPassRunner(TvmPassRunner):
    """A :class:`TvmPassRunner` whose worker is a fork of this process, so that it holds the very
    pass objects given here (any ``tvm.ir.transform.Pass``: configured constructors, Python-defined
    module passes, sequences). POSIX only; the child uses nothing but TVM."""

    def __init__(self, objects: Sequence, timeout: float = 60.0) -> None:
        super().__init__(timeout=timeout)
        self.objects = list(objects)

    def _start(self) -> None:
        r_req, w_req = os.pipe()
        r_rep, w_rep = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 0
            try:
                os.close(w_req)
                os.close(r_rep)
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)  # TVM's prints must not reach the parent's stdout
                _serve_forked(r_req, w_rep, self.objects)
            except BaseException:  # noqa: BLE001 - the child never returns into the parent's code
                code = 1
            finally:
                os._exit(code)
        os.close(r_req)
        os.close(w_rep)
        self.proc = _ForkedProc(pid, os.fdopen(w_req, "wb", buffering=0), os.fdopen(r_rep, "rb", buffering=0))
        self._buf = b""
        hello = self._read(120.0)
        if hello is None or not hello.get("ready"):
            self.close()
            raise RelaxError("the forked TVM worker did not start")
        self.version = hello.get("version", "?")


class TvmPassError(Exception):
    """A TVM pass did not produce a module relax-ref can check; ``symptom`` says how (the oracle
    reports it under that symptom) and ``detail`` holds TVM's traceback or output."""

    symptom = "crash"

    def __init__(self, message: str, detail: str = "", symptom: Optional[str] = None) -> None:
        super().__init__(message)
        self.detail = detail
        if symptom is not None:
            self.symptom = symptom


def dialect_for(version: str) -> str:
    """The TVMScript dialect relax-ref prints for TVM ``version`` (``tvm-0.25``, ``tvm-0.27`` where the
    printer knows these names, else ``tvm``)."""
    m = re.match(r"(\d+)\.(\d+)", version or "")
    try:
        from ..script.printer.dialect import DIALECTS

        if m and f"tvm-{m.group(1)}.{m.group(2)}" in DIALECTS:
            return f"tvm-{m.group(1)}.{m.group(2)}"
    except ImportError:  # pragma: no cover - the printer's layout changed
        pass
    return "tvm"


class TvmPass:
    """A TVM pass used as a relax-ref pass (``IRModule -> IRModule``): the module is printed as
    TVMScript in the installed TVM's dialect, read and transformed by TVM in a worker process, checked
    with TVM's ``well_formed`` and printed back, and read by relax-ref's parser. Failures raise
    :class:`TvmPassError` with the symptom ``tvm-load`` (TVM cannot read relax-ref's text), ``crash``,
    ``timeout``, ``ill-formed`` (TVM's own check) or ``read-back`` (relax-ref cannot read TVM's text).
    :meth:`close` ends the worker (a later call starts a new one)."""

    def __init__(self, item, runner: TvmPassRunner, name: str) -> None:
        self.item = item
        self.runner = runner
        self.name = name

    def __call__(self, mod):
        r = self.runner
        if r.proc is None or r.proc.poll() is not None:
            if r.proc is not None:
                r.restarts += 1
            r._start()
        try:
            reply = r.run(mod.script(dialect=dialect_for(r.version)), [self.item])
        except BaseException:
            r.close()  # a time limit or an interrupt left a request in flight
            raise
        if reply.status == "load-error":
            raise TvmPassError(f"TVM cannot read the module: {reply.message}", reply.detail, "tvm-load")
        if reply.status in ("crash", "died", "timeout"):
            raise TvmPassError(reply.message, reply.detail, "timeout" if reply.status == "timeout" else "crash")
        if reply.status == "ill-formed":
            raise TvmPassError(f"TVM's well_formed rejects the output: {reply.message}",
                               reply.texts[-1] if reply.texts else "", "ill-formed")
        text = reply.texts[-1]
        try:
            return _parse(text)
        except Exception as err:  # noqa: BLE001 - any parser failure on TVM's text is a read-back failure
            raise TvmPassError(f"relax-ref cannot read TVM's output: {type(err).__name__}: {err}",
                               f"{traceback.format_exc()}\n\n{text}", "read-back") from err

    def close(self) -> None:
        self.runner.close()

    def __repr__(self) -> str:
        return f"TvmPass({self.name})"


def tvm_pass(p, *args, timeout: float = 60.0, **kwargs) -> TvmPass:
    """A TVM pass as a relax-ref pass (see :class:`TvmPass`).

    * ``tvm_pass("FuseOps", fuse_opt_level=2)`` -- by name: the worker (a fresh Python process) calls
      ``tvm.relax.transform.FuseOps(fuse_opt_level=2)``; the arguments must be JSON values;
    * ``tvm_pass(tvm.relax.transform.FuseOps())`` -- a pass object: the worker is a fork of this
      process and applies that very object, so any pass works (configured, Python-defined, a
      ``Sequential``). TVM passes do not expose their constructor arguments, so an object cannot be
      re-created by name in another process; forking carries it over instead (POSIX only; the
      child uses nothing but TVM).
    """
    if isinstance(p, str):
        item = {"name": p, "args": list(args), "kwargs": dict(kwargs)}
        return TvmPass(item, TvmPassRunner(timeout=timeout), f"tvm.{p}")
    if args or kwargs:
        raise TypeError("arguments are only accepted with a pass name (the object is already configured)")
    if not hasattr(os, "fork"):
        raise RelaxError("a TVM pass object needs os.fork to reach the worker; use tvm_pass(<name>, ...)")
    info = getattr(p, "info", None)
    name = getattr(info, "name", None) or type(p).__name__
    return TvmPass({"object": 0}, ForkedPassRunner([p], timeout=timeout), f"tvm.{name}")


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
