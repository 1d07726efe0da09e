"""The oracles: does a pass (or a sequence of passes) preserve a program?

:func:`check_case` applies passes one at a time to a :class:`~relax_ref.testing.program.Program`
and stops at the first failure, classified by *symptom* (NNSmith / Tzer style; the criterion of PASS.PRESERVE.1-2):

``crash``       the pass raised (any exception);
``timeout``     the pass (or evaluating its output) ran past the time limit;
``ill-formed``  its output fails :func:`~relax_ref.static.well_formed.check_well_formed`;
``signature``   a public function disappeared, its parameters' struct info changed, or its return
                struct info became weaker (``is_base_of(old_ret, new_ret)`` fails) -- the struct-info
                promise of every pass in the catalog unless its spec says otherwise;
``mismatch``    the reference interpreter gives a different result (beyond the per-dtype tolerance of
                :mod:`relax_ref.testing.compare`) at one of the sizes, or raises where the original
                did not.

The expected results are computed once, from the original program, at every size. If the original
program itself fails there, the case is invalid (:class:`InvalidCaseError`), never a pass failure.
The result is an :class:`Outcome`; ``outcome.report()`` is a readable account with both modules
printed as TVMScript, which is what :class:`PassCheckError` (an ``AssertionError``) carries.
"""

from __future__ import annotations

import copy
import signal
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..analysis.struct_info_ops import is_base_of, struct_info_alpha_equal
from ..static.well_formed import check_well_formed
from ..errors import RelaxError
from ..ir import expr as rx
from ..ir.functor import struct_info_prim_vars, substitute_struct_info
from ..ir.module import IRModule
from ..ir.struct_info import FuncStructInfo, ObjectStructInfo, TupleStructInfo
from .compare import compare
from .inputs import inputs_for
from .program import Program

SYMPTOMS = ("ok", "crash", "timeout", "ill-formed", "signature", "mismatch")


class InvalidCaseError(RelaxError):
    """The input program cannot serve as a test case (it fails on the reference interpreter)."""

    kind = "invalid_case"


@dataclass
class Outcome:
    """The result of checking one program against a pass sequence."""

    symptom: str
    passes: Tuple[str, ...]
    before: IRModule
    failed_at: Optional[int] = None
    message: str = ""
    detail: str = ""
    after: Optional[IRModule] = None
    size: Optional[int] = None
    inputs: Optional[List[Any]] = None
    expected: Any = None
    actual: Any = None
    seconds: float = 0.0
    entry: str = "main"

    @property
    def ok(self) -> bool:
        return self.symptom == "ok"

    @property
    def failed_pass(self) -> Optional[str]:
        if self.failed_at is None or not self.passes:
            return None
        return self.passes[min(self.failed_at, len(self.passes) - 1)]

    def headline(self) -> str:
        if self.ok:
            return f"ok after {' -> '.join(self.passes)}"
        where = f" at size {self.size}" if self.size is not None else ""
        return (f"{self.symptom} in pass {self.failed_pass} (sequence: {' -> '.join(self.passes)}){where}: "
                f"{self.message}")

    def report(self, dialect: str = "classic") -> str:
        """The headline, the input module and (when there is one) the pass output, as TVMScript in
        ``dialect`` (any name :meth:`IRModule.script` accepts)."""
        parts = [self.headline(), "", "--- input module ---", _script(self.before, dialect)]
        if self.after is not None:
            parts += ["", f"--- after {self.failed_pass} ---", _script(self.after, dialect)]
        if self.inputs is not None:
            parts += ["", "--- inputs ---", _describe_values(self.inputs)]
        if self.detail:
            parts += ["", "--- detail ---", self.detail]
        return "\n".join(parts)


class PassCheckError(RelaxError, AssertionError):
    """A pass failed an oracle; ``.outcome`` holds the :class:`Outcome`, ``.stats`` (when
    ``check_pass`` raised it) how the failure was found and shrunk."""

    kind = "pass_check"

    def __init__(self, outcome: Outcome, dialect: str = "classic", notes: str = "", stats: Any = None) -> None:
        text = outcome.report(dialect)
        if notes:
            head, _, rest = text.partition("\n")
            text = f"{head}\n{notes}\n{rest}"
        super().__init__(text)
        self.outcome = outcome
        self.stats = stats

    def __str__(self) -> str:
        return self.message


def _script(mod: IRModule, dialect: str = "classic") -> str:
    try:
        return mod.script(dialect=dialect)
    except Exception as err:  # noqa: BLE001 - the report must be produced whatever the module holds
        return f"<the module could not be printed: {type(err).__name__}: {err}>"


def _describe_values(values: Sequence[Any]) -> str:
    lines = []
    with np.printoptions(threshold=64, precision=4):
        for i, v in enumerate(values):
            lines.append(f"arg{i} = {v!r}")
    return "\n".join(lines)


def pass_name(p: Any) -> str:
    return getattr(p, "name", None) or getattr(p, "__name__", None) or type(p).__name__


# ---------------------------------------------------------------------------------------------------
# Time limits
# ---------------------------------------------------------------------------------------------------


class TimeLimitExceeded(BaseException):
    """Raised by the alarm; a BaseException so that a pass's own ``except Exception`` cannot eat it."""


@contextmanager
def time_limit(seconds: Optional[float]):
    """Raise :class:`TimeLimitExceeded` after ``seconds`` (main thread only, POSIX; elsewhere no limit)."""
    if not seconds or seconds <= 0 or threading.current_thread() is not threading.main_thread() \
            or not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum, frame):
        raise TimeLimitExceeded()

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# ---------------------------------------------------------------------------------------------------
# Oracles
# ---------------------------------------------------------------------------------------------------


#: what freshly allocated ``call_tir`` outputs hold in a poisoned run, per dtype kind
POISON = {"f": np.nan, "i": -0x5A5A5A5, "u": 0xA5, "b": True}


def _poisoning_interpreter():
    """An interpreter whose ``call_tir`` outputs start as garbage instead of zeros: TVM leaves them
    uninitialized (the reference zero-fills them, CALL.TIR.5), so a kernel that reads an output it
    has not written -- a dropped reduction init, a skipped element -- is only wrong in TVM. The
    poisoned run exposes it."""
    global _PoisonInterpreter
    if _PoisonInterpreter is None:
        from ..interp import Interpreter

        class PoisonInterpreter(Interpreter):
            def _alloc(self, s, frame, span):
                arr = super()._alloc(s, frame, span)
                fill = POISON.get(arr.dtype.kind)
                if fill is not None and arr.size:
                    arr.fill(fill)
                return arr

        if not hasattr(Interpreter, "_alloc"):  # pragma: no cover - guards a rename in the interpreter
            raise RelaxError("the reference interpreter no longer allocates call_tir outputs in _alloc")
        _PoisonInterpreter = PoisonInterpreter
    return _PoisonInterpreter


_PoisonInterpreter = None


def _copy_inputs(inputs: Sequence[Any]) -> List[Any]:
    return [x.copy() if isinstance(x, np.ndarray) else copy.deepcopy(x) for x in inputs]


def run_entry(mod: IRModule, entry: str, inputs: Sequence[Any], poison: bool = False,
              layout: Optional[IRModule] = None) -> Any:
    """Evaluate ``entry`` on copies of ``inputs`` (a program may write into its arguments); with
    ``poison``, ``call_tir`` outputs start as garbage (see :func:`_poisoning_interpreter`). A function
    of the local view (one calling ``ccl``, ``call_tir_local_view`` or ``redistribute_replica_to_shard``)
    runs on the workers of its mesh and its result is gathered (DIST.LOCAL.1): the mesh and the
    placements are those of ``entry`` in ``layout`` (the last module of a pass chain in which it has
    DTensors) when given."""
    from ..interp.workers import evaluate_local, is_local_view

    func = mod[entry] if entry in mod else None
    if isinstance(func, rx.Function) and is_local_view(func):
        shape_of = layout[entry] if layout is not None and entry in layout else None
        return evaluate_local(mod, entry, *_copy_inputs(inputs), layout=shape_of,
                              interpreter=_poisoning_interpreter() if poison else None)
    if poison:
        return _poisoning_interpreter()(mod)(entry, *_copy_inputs(inputs))
    from ..interp import Interpreter

    return Interpreter(mod)(entry, *_copy_inputs(inputs))


def _has_dtensors(mod: IRModule, entry: str) -> bool:
    from ..ir.distributed import DTensorStructInfo

    f = mod[entry] if entry in mod else None
    if not isinstance(f, rx.Function):
        return False

    def any_d(s) -> bool:
        if isinstance(s, DTensorStructInfo):
            return True
        return isinstance(s, TupleStructInfo) and any(any_d(x) for x in s.fields)
    return any(any_d(p.struct_info) for p in f.params) or any_d(f.ret_struct_info)


def signature_problem(before: IRModule, after: IRModule) -> Optional[str]:
    """Why ``after`` breaks the signature promise for ``before``'s public functions, or None."""
    for gv, f in before.relax_functions():
        if f.global_symbol is None:
            continue
        name = gv.name_hint
        if name not in after:
            return f"public function '{name}' was removed"
        g = after[name]
        if not isinstance(g, rx.Function):
            return f"public function '{name}' is no longer a Relax function"
        if len(g.params) != len(f.params):
            return f"'{name}' has {len(g.params)} parameters instead of {len(f.params)}"
        fp = tuple(p.struct_info for p in f.params)
        gp = tuple(p.struct_info for p in g.params)
        if not struct_info_alpha_equal(FuncStructInfo(fp, ObjectStructInfo()), FuncStructInfo(gp, ObjectStructInfo())):
            return f"the parameters of '{name}' changed struct info"
        vmap = _pair_sym_vars(gp, fp)
        new_ret = substitute_struct_info(g.ret_struct_info, vmap) if g.ret_struct_info is not None else None
        if new_ret is None or not is_base_of(f.ret_struct_info, new_ret):
            return (f"the return struct info of '{name}' was weakened from {f.ret_struct_info} to "
                    f"{g.ret_struct_info}")
    return None


def _pair_sym_vars(src_params, dst_params) -> Dict:
    """Map the symbolic variables of ``src_params`` to those at the same places in ``dst_params``."""
    vmap: Dict = {}
    for a, b in zip(src_params, dst_params):
        va, vb = list(struct_info_prim_vars(a)), list(struct_info_prim_vars(b))
        if len(va) == len(vb):
            for x, y in zip(va, vb):
                if x is not y:
                    vmap.setdefault(x, y)
    return vmap


def expected_results(program: Program, sizes: Sequence[int], seed: int) -> List[Tuple[int, List[Any], Any]]:
    """``(size, inputs, result)`` of the original program at each size; InvalidCaseError if it fails."""
    out = []
    for size in sizes:
        inputs = inputs_for(program, size, seed)
        try:
            res = run_entry(program.mod, program.entry, inputs)
        except RelaxError as err:
            raise InvalidCaseError(f"the input program fails on the reference interpreter at size {size}: "
                                   f"{type(err).__name__}: {err.message}\n{_script(program.mod)}") from err
        out.append((size, inputs, res))
    return out


def check_case(program: Program, passes: Sequence[Callable[[IRModule], IRModule]], *,
               sizes: Sequence[int] = (1, 3), seed: int = 0, tolerances=None, signature: bool = True,
               timeout: Optional[float] = None, check_each: bool = True, untested: int = 0,
               expected: Optional[List[Tuple[int, List[Any], Any]]] = None, poison: bool = False) -> Outcome:
    """Apply ``passes`` to ``program.mod`` in order and run the oracles after each one (only after
    the last when ``check_each`` is false). The first ``untested`` passes only prepare the input
    (e.g. ``LegalizeOps`` before ``FuseOps``); they are still checked, so a failure there is
    reported against them. With ``poison`` the outputs are evaluated with ``call_tir`` outputs
    that start as garbage (:func:`run_entry`). An exception with a ``symptom`` attribute (e.g. from
    a TVM pass run through :mod:`relax_ref.testing.tvm_bridge`) is reported under that symptom
    instead of ``crash``."""
    names = tuple(pass_name(p) for p in passes)
    start = time.perf_counter()
    if expected is None:
        expected = expected_results(program, sizes, seed)
    mod = program.mod
    entry = program.entry
    # the last module whose entry has DTensors (DIST.LOCAL.1)
    layout: Optional[IRModule] = mod if _has_dtensors(mod, entry) else None

    def fail(symptom, i, message, detail="", after=None, **kw) -> Outcome:
        return Outcome(symptom, names, program.mod, i, message, detail, after,
                       seconds=time.perf_counter() - start, entry=entry, **kw)

    for i, p in enumerate(passes):
        try:
            with time_limit(timeout):
                new = p(mod)
        except TimeLimitExceeded:
            return fail("timeout", i, f"the pass ran longer than {timeout} s", after=mod)
        except Exception as err:  # noqa: BLE001 - any exception of a pass is a crash
            symptom = getattr(err, "symptom", None) or "crash"
            detail = getattr(err, "detail", None) or traceback.format_exc()
            return fail(symptom, i, f"{type(err).__name__}: {err}", detail, after=mod)
        if not isinstance(new, IRModule):
            return fail("crash", i, f"the pass returned {type(new).__name__}, not an IRModule", after=mod)
        try:
            check_well_formed(new)  # recorded: the interpreter does not check it again (EVAL.PROG.2)
        except RelaxError as err:
            return fail("ill-formed", i, f"{type(err).__name__}: {err.message}", str(err), after=new)
        except Exception as err:  # noqa: BLE001 - the checker itself failing on the output
            return fail("ill-formed", i, f"the well-formedness checker failed: {type(err).__name__}: {err}",
                        traceback.format_exc(), after=new)
        if signature and i >= untested:
            why = signature_problem(program.mod, new)
            if why is not None:
                return fail("signature", i, why, after=new)
        mod = new
        if _has_dtensors(mod, entry):
            layout = mod
        if not check_each and i != len(passes) - 1:
            continue
        for size, inputs, res in expected:
            try:
                with time_limit(timeout):
                    got = run_entry(mod, entry, inputs, poison=poison, layout=layout)
            except TimeLimitExceeded:
                return fail("timeout", i, f"evaluating the output ran longer than {timeout} s", after=mod,
                            size=size, inputs=inputs, expected=res)
            except Exception as err:  # noqa: BLE001 - the original ran, so any failure is the pass's
                return fail("mismatch", i, f"the output raised {type(err).__name__}: {err}",
                            traceback.format_exc(), after=mod, size=size, inputs=inputs, expected=res)
            diff = compare(res, got, tolerances=tolerances)
            if diff is not None:
                return fail("mismatch", i, diff, after=mod, size=size, inputs=inputs, expected=res, actual=got)
    return Outcome("ok", names, program.mod, after=mod, seconds=time.perf_counter() - start, entry=entry)


__all__ = ["SYMPTOMS", "Outcome", "PassCheckError", "InvalidCaseError", "check_case", "expected_results",
           "signature_problem", "run_entry", "time_limit", "TimeLimitExceeded", "pass_name"]
