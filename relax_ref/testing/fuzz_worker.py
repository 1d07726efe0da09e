"""Evaluation for the fuzzer in a worker process: whatever a program does to its evaluator (an XLA abort,
a hang, a memory runaway) is an outcome of that program, never the end of the campaign.

:class:`Worker` owns one child process (``spawn``: the parent never imports JAX) that serves requests
over a pipe: parse a text, print it back (the round trip of TEXT.RT.1, on the reference), then evaluate
the entry on each argument list with one implementation (``"ref"``: :func:`relax_ref.evaluate`;
``"jax"``: :func:`relax_jax.compile`; ``"module:function"``: ``function(mod, entry, args)``, how the
tests plant bugs). Every step becomes an :class:`Outcome`:

* ``value`` -- the public result (arrays of more than :data:`MAX_VALUE_BYTES` become a digest);
* ``error`` -- a :class:`~relax_ref.errors.RelaxError` (its class and message);
* ``crash`` -- any other exception (class, message, the innermost frame of the project's code);
* ``abort`` -- the child died (a signal, an exit); ``hang`` -- it did not answer within the timeout
  (it is killed). The worker starts a fresh child for the next request.

The child runs under an address-space limit (``mem_limit`` bytes, ``RLIMIT_AS``) so that a memory
runaway ends as a ``MemoryError`` (a crash) or an abort, not a machine out of memory, and with
evaluation budgets (:data:`DEFAULT_BUDGETS`) under which every program that stays within them ends
well within the timeout. A timeout is confirmed on a fresh child with a longer one before it is a
``hang`` (a loaded machine makes programs slow, not endless); an abort is confirmed on a fresh child
too, and one the fresh child does not repeat is kept apart with its program (``unrepeated_aborts``).
"""

from __future__ import annotations

import copy
import hashlib
import multiprocessing as mp
import os
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

#: results larger than this are compared by digest (shape, dtype and a hash of the bytes)
MAX_VALUE_BYTES = 1 << 20
#: default address-space limit of a worker child
DEFAULT_MEM_LIMIT = 6 << 30
#: the evaluation budgets of a worker child (RUNTIME.LIMIT.3, RUNTIME.LIMIT.4), lower than relax-ref's
#: defaults so that whatever a program may do within them ends well within the per-program timeout on
#: both implementations: 2**20 loop iterations of one PrimFunc call take seconds on the reference,
#: which runs a loop whose iterations depend on each other one at a time, and a tensor of at most
#: 1 GiB leaves room for the copies an operator makes under the address-space limit. A program past
#: them is ``limit_exceeded`` on both, by the same rules; a loop that never ends is still one.
DEFAULT_BUDGETS = {"RELAX_REF_MAX_STEPS": 1 << 20, "RELAX_REF_MAX_BYTES": 1 << 30}
#: a request that outlasts its timeout is tried once more, on a fresh child, with this many times the
#: timeout, before it is a ``hang``: on a loaded machine a slow answer is not a hang
HANG_CONFIRM_FACTOR = 3.0
#: characters of a program kept with an abort that a fresh child did not repeat
MAX_KEPT_TEXT = 4000
#: path fragments of the project's code, for the frame that names a crash
_OUR_CODE = ("relax_ref" + os.sep, "relax_jax" + os.sep)


@dataclass(frozen=True)
class Digest:
    """A result too large to send back: its shape, dtype and a hash of its bytes."""

    shape: Tuple[int, ...]
    dtype: str
    sha256: str


@dataclass
class Outcome:
    """What one step did: ``kind`` is ``value``, ``error``, ``crash``, ``abort`` or ``hang``."""

    kind: str
    cls: str = ""
    message: str = ""
    where: str = ""
    value: Any = None

    def describe(self) -> str:
        if self.kind == "value":
            return "value"
        return f"{self.kind} {self.cls}".strip() + (f" at {self.where}" if self.where else "")


@dataclass
class Response:
    """The outcome of parsing, of the print/parse round trip and of each run."""

    parse: Outcome
    roundtrip: Optional[Outcome] = None
    runs: List[Outcome] = field(default_factory=list)
    #: the argument lists evaluated, with what each is (``right``, ``case``, or what was made wrong)
    inputs: List[Tuple[str, List[Any]]] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------------
# the child
# ---------------------------------------------------------------------------------------------------


def _host(value: Any) -> Any:
    """A picklable, comparable form of a public result (big arrays as digests)."""
    import numpy as np

    if isinstance(value, (list, tuple)):
        return tuple(_host(v) for v in value)
    cache = _host_cache(value)
    if cache is not None:
        return cache
    if hasattr(value, "__array__") and not isinstance(value, (int, float, bool, str)):
        a = np.asarray(value)
        if a.nbytes > MAX_VALUE_BYTES:
            h = hashlib.sha256(np.ascontiguousarray(a).view(np.uint8).tobytes()).hexdigest()[:16]
            return Digest(tuple(a.shape), str(a.dtype), h)
        return a
    return value


def _host_cache(value: Any) -> Any:
    """A KV-cache object with its buffer as a numpy array (compared by its state,
    :mod:`relax_ref.testing.compare`), or None for other values."""
    import numpy as np

    from relax_ref.interp.kv_cache import AttentionKVCache
    from relax_ref.interp.paged_kv_cache import PagedKVCache

    if isinstance(value, AttentionKVCache):
        return AttentionKVCache(np.asarray(value.data), value.fill, value.pos)
    if isinstance(value, PagedKVCache):
        out = PagedKVCache(value.config, np.asarray(value.pool))
        out.state = value.state
        return out
    return None


def _frame(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    for fr in reversed(frames):
        if any(p in fr.filename for p in _OUR_CODE) and "fuzz_" not in fr.filename:
            tail = fr.filename.split(os.sep)
            return f"{'/'.join(tail[-2:])}:{fr.name}"
    return f"{frames[-1].name}" if frames else ""


def _outcome_of(exc: BaseException) -> Outcome:
    from relax_ref.errors import RelaxError

    msg = str(exc).splitlines()[0][:300] if str(exc) else ""
    if isinstance(exc, RelaxError):
        return Outcome("error", type(exc).__name__, msg)
    return Outcome("crash", type(exc).__name__, msg, _frame(exc))


def _evaluator(impl: str):
    if impl == "ref":
        import relax_ref

        return lambda mod, entry, args: relax_ref.evaluate(mod, entry, *args)
    if impl == "jax":
        import relax_jax

        cache: Dict[int, Any] = {}

        def run(mod, entry, args):
            exe = cache.get(id(mod))
            if exe is None:
                cache.clear()
                exe = cache[id(mod)] = (mod, relax_jax.compile(mod))
            return exe[1](entry, *args)
        return run
    import importlib

    module, _, name = impl.partition(":")
    return getattr(importlib.import_module(module), name)


def _roundtrip(mod: Any) -> Optional[Outcome]:
    """``None`` when ``mod`` prints to a text that parses back structurally equal (TEXT.RT.1)."""
    import relax_ref

    try:
        text = mod.script()
    except Exception as e:  # noqa: BLE001 - every failure is an outcome
        o = _outcome_of(e)
        return None if o.kind == "error" and o.cls == "UnsupportedError" else o
    try:
        back = relax_ref.parse(text)
    except Exception as e:  # noqa: BLE001
        o = _outcome_of(e)
        o.message = f"the printed text does not parse: {o.message}"
        return o
    if not relax_ref.structural_equal(mod, back):
        return Outcome("error", "RoundTrip", "the printed text parses to a different module")
    return None


def _make_inputs(mod: Any, req: Dict[str, Any]) -> List[Tuple[str, List[Any]]]:
    """Right arguments from the entry's struct info (or the case's own, ``base``), then ``wrong`` wrong
    variants of them (:func:`~relax_ref.testing.fuzz_mutate.wrong_inputs`)."""
    import numpy as np

    from .fuzz_mutate import wrong_inputs
    from .inputs import module_inputs

    rng = np.random.default_rng(req["seed"])
    out: List[Tuple[str, List[Any]]] = []
    try:
        out.append(("right", module_inputs(mod, req["entry"], 2, req["seed"])))
    except Exception:  # noqa: BLE001 - no struct info to draw from: the case's own arguments
        out += [("case", list(b)) for b in req.get("base", [])[:1]]
    if out:
        out += wrong_inputs(out[0][1], rng, req.get("wrong", 0))
    return out


def _harness_failure(what: str, exc: BaseException) -> Outcome:
    """A failure of the harness itself (not of the program under test) as the ``crash`` outcome of the
    request (signature stage ``harness``), so that the campaign reports it with the program instead of
    losing the worker."""
    o = _outcome_of(exc)
    return Outcome("crash", type(exc).__name__, f"harness: {what} failed: {o.message}"[:300], o.where)


def _handle(req: Dict[str, Any], evaluate) -> Response:
    import relax_ref

    try:
        mod = relax_ref.parse(req["text"])
    except Exception as e:  # noqa: BLE001
        return Response(_outcome_of(e))
    resp = Response(Outcome("value"))
    if req.get("roundtrip"):
        resp.roundtrip = _roundtrip(mod)
    try:
        resp.inputs = req["inputs"] if req.get("inputs") is not None else _make_inputs(mod, req)
    except Exception as e:  # noqa: BLE001 - the harness's own failure, reported with the program
        return Response(_harness_failure("making the arguments", e), resp.roundtrip)
    for _, args in resp.inputs:
        try:
            with _float_mode(req.get("ftz", False)):
                resp.runs.append(Outcome("value", value=_host(evaluate(mod, req["entry"], copy.deepcopy(args)))))
        except Exception as e:  # noqa: BLE001 - RecursionError and MemoryError included
            resp.runs.append(_outcome_of(e))
    return resp


def _float_mode(ftz: bool):
    """The evaluation under the processor's flush-to-zero modes when ``ftz`` (PRIM.FLOAT.6)."""
    import contextlib

    if not ftz:
        return contextlib.nullcontext()
    from .ftz import flush_denormals

    return flush_denormals()


#: a program a worker parses and prints before it says it is ready, so that what the first program
#: imports (the parser, the operators' inference, the printer) is not charged to the first
#: program of the campaign (on a loaded machine that took longer than the per-program timeout)
WARM_UP = """from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((T.int64(2),), "float32"), B: T.Buffer((T.int64(2),), "float32")):
        for i in range(T.int64(2)):
            B[i] = A[i] + T.float32(1)

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        cls = Module
        y = R.add(x, x)
        z = R.call_tir(cls.k, (R.reshape(y, R.shape([2])),), out_sinfo=R.Tensor((2,), "float32"))
        return y
"""


def _warm_up() -> None:
    """Parse and print :data:`WARM_UP` (the implementation is not called: a planted one may abort)."""
    import relax_ref

    try:
        relax_ref.parse(relax_ref.parse(WARM_UP).script())
    except Exception:  # noqa: BLE001 - a failure here shows again, as a finding, on a program
        pass


def register_suite_funcs() -> int:
    """Register the conformance suite's packed functions (CALL.PACKED.5) in relax-ref's global
    registry, which the reference and relax_jax both consult, so that the suite's packed calls run
    their functions in the worker as in the suite (without them every such call would end at the
    look-up, on both). Returns how many; 0 when ``relax_conformance`` is not importable."""
    try:
        from relax_conformance.packed import SUITE_FUNCS
    except ImportError:
        return 0
    import relax_ref

    for spec in SUITE_FUNCS.values():
        # both evaluators hand packed functions numpy arrays, so every style is the NumPy definition
        relax_ref.register_func(spec.name, spec.fn)
    return len(SUITE_FUNCS)


def _serve(conn, impl: str, mem_limit: int, budgets: Dict[str, int]) -> None:  # pragma: no cover - child
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))     # an abort leaves no core file behind
    except (ImportError, ValueError, OSError):
        pass
    import sys

    for name, value in budgets.items():                     # before relax_ref reads its defaults
        os.environ[name] = str(value)
    sys.stdout = open(os.devnull, "w")                       # what the programs print (R.print)
    register_suite_funcs()
    evaluate = _evaluator(impl)
    _warm_up()                                              # the lazy imports, charged to the start-up
    conn.send("ready")
    while True:
        req = conn.recv()
        if req is None:
            return
        try:
            resp = _handle(req, evaluate)
        except Exception as e:  # noqa: BLE001 - never a dead worker for what one request does
            resp = Response(_harness_failure("the request", e))
        try:
            conn.send(resp)
        except Exception as e:  # noqa: BLE001 - a result that cannot be sent back is a crash
            conn.send(Response(resp.parse, resp.roundtrip, [Outcome("crash", type(e).__name__,
                                                                   f"result not transferable: {e}"[:300])]))


# ---------------------------------------------------------------------------------------------------
# the parent's handle
# ---------------------------------------------------------------------------------------------------


#: how many times a worker's start is tried before the campaign gives up
START_ATTEMPTS = 3


class WorkerStartError(RuntimeError):
    """A worker process did not start (not a finding: the campaign stops and reports what it has)."""


class Worker:
    """A child process evaluating with ``impl``; :meth:`request` never raises for what the program
    does. ``timeout``: seconds per request (parse, round trip and every run)."""

    def __init__(self, impl: str, timeout: float = 20.0, mem_limit: int = DEFAULT_MEM_LIMIT,
                 startup_timeout: float = 180.0, budgets: Optional[Dict[str, int]] = None,
                 confirm_hangs: bool = True) -> None:
        self.impl = impl
        self.timeout = timeout
        self.mem_limit = mem_limit
        self.budgets = dict(DEFAULT_BUDGETS if budgets is None else budgets)
        self.confirm_hangs = confirm_hangs
        #: requests that outlasted the timeout and answered when tried again with a longer one
        self.slow = 0
        #: requests whose child died and that a fresh child then answered (how it died, the program)
        self.unrepeated_aborts: List[Dict[str, str]] = []
        self.startup_timeout = startup_timeout
        self.proc: Optional[Any] = None
        self.conn: Optional[Any] = None
        self.restarts = 0
        self.requests = 0
        self.start_failures = 0

    def _start(self) -> None:
        """Start the child; on a loaded machine a start can fail (the import outlasting the timeout,
        the child killed): tried three times before :class:`WorkerStartError`."""
        for attempt in range(START_ATTEMPTS):
            try:
                self._start_once()
                return
            except WorkerStartError:
                self.start_failures += 1
                if attempt == START_ATTEMPTS - 1:
                    raise
                time.sleep(2.0 * (attempt + 1))

    def _start_once(self) -> None:
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, self.impl, self.mem_limit, self.budgets), daemon=True)
        self.proc.start()
        child.close()
        self.conn = parent
        # the start-up (importing the implementation) is not charged to the first program
        try:
            ok = parent.poll(self.startup_timeout) and parent.recv() == "ready"
        except (EOFError, OSError):
            ok = False
        if not ok:
            self._kill()
            raise WorkerStartError(f"the {self.impl} worker did not start")

    def _kill(self) -> None:
        if self.proc is not None:
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(5)
        if self.conn is not None:
            self.conn.close()
        self.proc = self.conn = None
        self.restarts += 1

    def request(self, text: str, entry: str, *, inputs: Optional[Sequence[Tuple[str, List[Any]]]] = None,
                seed: int = 0, wrong: int = 0, base: Sequence[Sequence[Any]] = (), roundtrip: bool = False,
                timeout: Optional[float] = None, ftz: bool = False, confirm: bool = True) -> Response:
        """Parse ``text`` and evaluate ``entry`` on ``inputs`` (labelled argument lists), or on arguments
        the child makes (right ones from the struct info, else the first of ``base``; ``wrong`` wrong
        variants of them; drawn from ``seed``); ``ftz``: evaluate with subnormals flushed
        (:mod:`relax_ref.testing.ftz`). A request that outlasts the timeout is tried once more on a
        fresh child with :data:`HANG_CONFIRM_FACTOR` times the timeout; only then is it a ``hang``."""
        req = {"text": text, "entry": entry, "inputs": None if inputs is None else list(inputs),
               "seed": seed, "wrong": wrong, "base": [list(b) for b in base], "roundtrip": roundtrip, "ftz": ftz}
        limit = self.timeout if timeout is None else timeout
        resp = self._send(req, limit)
        if resp.parse.kind == "abort" and self.confirm_hangs and confirm:
            # an abort is tried again on a fresh child: one that the program does not repeat there came
            # from the state the long-lived child had built up (its address space), and is kept apart
            again = self._send(req, limit)
            if again.parse.kind == "abort":
                return again
            self.unrepeated_aborts.append({"how": resp.parse.cls, "entry": entry, "text": text[:MAX_KEPT_TEXT]})
            return again
        if resp.parse.kind != "hang" or not (self.confirm_hangs and confirm):
            return resp
        again = self._send(req, limit * HANG_CONFIRM_FACTOR)
        if again.parse.kind == "hang":
            return Response(Outcome("hang", message=f"no answer within {limit:g} s, nor within "
                                                    f"{limit * HANG_CONFIRM_FACTOR:g} s on a fresh worker"))
        self.slow += 1
        return again

    def _send(self, req: Dict[str, Any], limit: float) -> Response:
        if self.proc is None or not self.proc.is_alive():
            self._start()
        self.requests += 1
        try:
            self.conn.send(req)
            deadline = time.monotonic() + limit
            while time.monotonic() < deadline:
                if self.conn.poll(0.05):
                    return self.conn.recv()
                if not self.proc.is_alive():
                    raise EOFError
            self._kill()
            return Response(Outcome("hang", message=f"no answer within {limit:g} s"))
        except (EOFError, BrokenPipeError, ConnectionResetError, OSError):
            code = self.proc.exitcode if self.proc is not None else None
            if self.proc is not None:
                self.proc.join(5)
                code = self.proc.exitcode
            self._kill()
            how = f"signal {-code}" if isinstance(code, int) and code < 0 else f"exit {code}"
            return Response(Outcome("abort", how, "the worker process died"))

    def close(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            try:
                self.conn.send(None)
                self.proc.join(5)
            except (BrokenPipeError, OSError):
                pass
        if self.proc is not None and self.proc.is_alive():
            self.proc.kill()
            self.proc.join(5)
        self.proc = self.conn = None


__all__ = ["Digest", "Outcome", "Response", "Worker", "MAX_VALUE_BYTES", "DEFAULT_MEM_LIMIT", "DEFAULT_BUDGETS",
           "HANG_CONFIRM_FACTOR"]
