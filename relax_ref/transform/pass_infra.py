"""The pass infrastructure: passes, sequences, the pass context and instrumentation (PASS.INFRA.*).

A pass is a pure function ``IRModule -> IRModule`` with a name (PASS.INFRA.1); IR nodes are
immutable, so a pass can never change its input. Modelled on TVM 0.25's ``tvm.transform``
(``include/tvm/ir/transform.h``):

* :class:`Pass` -- base class; subclasses implement :meth:`Pass.transform`. Calling a pass runs it
  under the current :class:`PassContext`: the context's instruments may veto it (``should_run``) and
  see the module before and after it (PASS.INFRA.2). ``Pass.opt_level`` is the minimum optimization
  level at which a :class:`Sequential` runs the pass; calling a pass directly always runs it, as in
  TVM (PASS.INFRA.3).
* :class:`FunctionPass` -- a pass applied to every Relax function of the module separately
  (TVM's ``CreateFunctionPass``); subclasses implement :meth:`FunctionPass.transform_function`.
* :class:`Sequential` -- runs passes in order, skipping those the context does not enable:
  a pass is enabled when it is listed in ``required_pass``, or it is not listed in
  ``disabled_pass`` and ``pass.opt_level <= ctx.opt_level`` (PASS.INFRA.3).
* :func:`function_pass` / :func:`module_pass` -- wrap a plain function ``mod -> mod``.
* :class:`PassContext` -- ``opt_level`` (default 2, as TVM), ``config`` (per-pass options such as
  ``"relax.FuseOps.max_depth"``; keys must be registered with :func:`register_config_option`),
  ``required_pass``/``disabled_pass`` (pass names) and ``instruments``. Use it as a context manager;
  :meth:`PassContext.current` is the innermost active context (a default one outside any ``with``)
  (PASS.INFRA.4).
* :class:`PassInstrument` -- hooks ``enter_pass_ctx``, ``exit_pass_ctx``, ``should_run(mod, info)``,
  ``run_before_pass(mod, info)``, ``run_after_pass(mod, info)`` (PASS.INFRA.5). Instruments see every
  pass invocation, including the passes nested in a :class:`Sequential` (which is itself a pass).
  Provided: :class:`PassTimingInstrument` (wall-clock time per pass), :class:`WellFormedInstrument`
  (checks every pass output with :func:`relax_ref.static.well_formed.check_well_formed`) and
  :class:`PassTraceInstrument` (records the names of the passes that ran).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir.module import IRModule


@dataclass(frozen=True)
class PassInfo:
    """Name, optimization level and required passes of a pass (TVM's ``PassInfo``)."""

    name: str
    opt_level: int = 0
    required: Tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------------
# Configuration options
# ---------------------------------------------------------------------------------------------------

_CONFIG_OPTIONS: Dict[str, type] = {}


def register_config_option(key: str, value_type: type) -> None:
    """Declare a ``PassContext`` config key and the Python type of its values (PASS.INFRA.4)."""
    _CONFIG_OPTIONS[key] = value_type


def config_options() -> Dict[str, type]:
    """The registered config keys and their value types."""
    return dict(_CONFIG_OPTIONS)


register_config_option("relax.FuseOps.max_depth", int)


# ---------------------------------------------------------------------------------------------------
# Instruments
# ---------------------------------------------------------------------------------------------------


class PassInstrument:
    """Instrumentation hooks; every method is optional (PASS.INFRA.5)."""

    name: str = "PassInstrument"

    def enter_pass_ctx(self) -> None:
        """Called when the owning :class:`PassContext` is entered."""

    def exit_pass_ctx(self) -> None:
        """Called when the owning :class:`PassContext` is exited."""

    def should_run(self, mod: IRModule, info: PassInfo) -> bool:
        """Return False to skip the pass (its input is then its result)."""
        return True

    def run_before_pass(self, mod: IRModule, info: PassInfo) -> None:
        """Called right before a pass runs on ``mod``."""

    def run_after_pass(self, mod: IRModule, info: PassInfo) -> None:
        """Called right after a pass produced ``mod``."""


@dataclass
class PassTiming:
    name: str
    seconds: float
    depth: int


class PassTimingInstrument(PassInstrument):
    """Records the wall-clock time of every pass invocation (nested ones with a larger depth)."""

    name = "PassTimingInstrument"

    def __init__(self) -> None:
        self.timings: List[PassTiming] = []
        self._stack: List[float] = []

    def enter_pass_ctx(self) -> None:
        self.timings = []
        self._stack = []

    def run_before_pass(self, mod: IRModule, info: PassInfo) -> None:
        self._stack.append(time.perf_counter())

    def run_after_pass(self, mod: IRModule, info: PassInfo) -> None:
        start = self._stack.pop()
        self.timings.append(PassTiming(info.name, time.perf_counter() - start, len(self._stack)))

    def render(self) -> str:
        """One line per pass invocation, in completion order, indented by nesting depth."""
        return "\n".join(f"{'  ' * t.depth}{t.name}: {t.seconds * 1e3:.3f} ms" for t in self.timings)


class PassTraceInstrument(PassInstrument):
    """Records the names of the passes that ran, in the order they started."""

    name = "PassTraceInstrument"

    def __init__(self) -> None:
        self.names: List[str] = []

    def run_before_pass(self, mod: IRModule, info: PassInfo) -> None:
        self.names.append(info.name)


class WellFormedInstrument(PassInstrument):
    """Checks that every pass output is well formed; a violation raises the checker's error
    (WellFormedError / StructInfoError) naming the pass."""

    name = "WellFormedInstrument"

    def __init__(self, check_struct_info: bool = True) -> None:
        self.check_struct_info = check_struct_info
        self.checked: List[str] = []

    def run_after_pass(self, mod: IRModule, info: PassInfo) -> None:
        from ..static.well_formed import check_well_formed

        try:
            check_well_formed(mod, check_struct_info=self.check_struct_info)
        except RelaxError as err:
            err.message = f"after pass {info.name}: {err.message}"
            err.args = (err.message,)
            raise
        self.checked.append(info.name)


# ---------------------------------------------------------------------------------------------------
# Pass context
# ---------------------------------------------------------------------------------------------------

_STATE = threading.local()


def _stack() -> List["PassContext"]:
    s = getattr(_STATE, "stack", None)
    if s is None:
        s = _STATE.stack = []
    return s


class PassContext:
    """Options for running passes; a context manager (PASS.INFRA.4)."""

    def __init__(self, opt_level: int = 2, config: Optional[Mapping[str, Any]] = None,
                 required_pass: Iterable[str] = (), disabled_pass: Iterable[str] = (),
                 instruments: Iterable[PassInstrument] = ()) -> None:
        if not isinstance(opt_level, int) or isinstance(opt_level, bool) or opt_level < 0:
            raise RelaxError(f"PassContext: opt_level must be a non-negative int, got {opt_level!r}")
        cfg = dict(config or {})
        for key, value in cfg.items():
            typ = _CONFIG_OPTIONS.get(key)
            if typ is None:
                raise RelaxError(f"PassContext: unknown config option '{key}' (known: "
                                 f"{', '.join(sorted(_CONFIG_OPTIONS))})")
            if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
                raise RelaxError(f"PassContext: config option '{key}' expects {typ.__name__}, got "
                                 f"{type(value).__name__}")
        self.opt_level = opt_level
        self.config: Dict[str, Any] = cfg
        self.required_pass = frozenset(required_pass)
        self.disabled_pass = frozenset(disabled_pass)
        self.instruments: Tuple[PassInstrument, ...] = tuple(instruments)

    @staticmethod
    def current() -> "PassContext":
        """The innermost entered context, or a default context."""
        s = _stack()
        if s:
            return s[-1]
        default = getattr(_STATE, "default", None)
        if default is None:
            default = _STATE.default = PassContext()
        return default

    def get_config(self, key: str, default: Any = None) -> Any:
        if key not in _CONFIG_OPTIONS:
            raise RelaxError(f"PassContext: unknown config option '{key}'")
        return self.config.get(key, default)

    def pass_enabled(self, info: PassInfo) -> bool:
        """(PASS.INFRA.3) required > disabled > opt level."""
        if info.name in self.required_pass:
            return True
        if info.name in self.disabled_pass:
            return False
        return self.opt_level >= info.opt_level

    def __enter__(self) -> "PassContext":
        for ins in self.instruments:
            ins.enter_pass_ctx()
        _stack().append(self)
        return self

    def __exit__(self, *exc) -> None:
        s = _stack()
        if not s or s[-1] is not self:
            raise RelaxError("PassContext exited out of order")
        s.pop()
        for ins in self.instruments:
            ins.exit_pass_ctx()

    # -- instrumentation ----------------------------------------------------------------------------
    def _should_run(self, mod: IRModule, info: PassInfo) -> bool:
        return all(ins.should_run(mod, info) for ins in self.instruments)

    def _before(self, mod: IRModule, info: PassInfo) -> None:
        for ins in self.instruments:
            ins.run_before_pass(mod, info)

    def _after(self, mod: IRModule, info: PassInfo) -> None:
        for ins in self.instruments:
            ins.run_after_pass(mod, info)

    def __repr__(self) -> str:
        return f"PassContext(opt_level={self.opt_level}, config={self.config!r})"


# ---------------------------------------------------------------------------------------------------
# Passes
# ---------------------------------------------------------------------------------------------------


class Pass(ABC):
    """Base class of passes: ``name`` plus ``transform(mod) -> mod``; calling the pass transforms
    under the current :class:`PassContext` (PASS.INFRA.1-2)."""

    name: str = "Pass"
    opt_level: int = 0
    required: Tuple[str, ...] = ()
    #: whether changed functions get their return struct info as TVM's expression mutator rebuilds
    #: them (PASS.UTIL.4)
    rebuilds_returns: bool = False

    @property
    def info(self) -> PassInfo:
        return PassInfo(self.name, self.opt_level, tuple(self.required))

    @abstractmethod
    def transform(self, mod: IRModule) -> IRModule:
        raise NotImplementedError(f"{type(self).__name__} must implement transform()")

    def __call__(self, mod: IRModule) -> IRModule:
        if not isinstance(mod, IRModule):
            raise TypeError(f"pass {self.name} expects an IRModule, got {type(mod).__name__}")
        ctx = PassContext.current()
        info = self.info
        if not ctx._should_run(mod, info):
            return mod
        ctx._before(mod, info)
        out = self.transform(mod)
        if not isinstance(out, IRModule):
            raise RelaxError(f"pass {self.name} returned {type(out).__name__}, not an IRModule")
        if self.rebuilds_returns and out is not mod:
            out = _rebuilt_returns(mod, out)
        ctx._after(out, info)
        return out

    def __repr__(self) -> str:
        return f"<pass {self.name}>"


def _rebuilt_returns(before: IRModule, after: IRModule) -> IRModule:
    """(PASS.UTIL.4) A Relax function the pass changed whose declared return struct info and body
    struct info are incompatible (neither is a base of the other) returns its body's struct info, as a
    function rebuilt by TVM's ``ExprMutator`` does; the module is then re-normalized."""
    from ..static.normalize import function_return_struct_info
    from ..analysis.struct_info_ops import is_base_of
    from ..ir import expr as rx

    fixed = {}
    for gv, f in after.functions_items():
        old = before.get(gv.name_hint)
        if not isinstance(f, rx.Function) or old is f or f.ret_struct_info is None:
            continue
        body = f.body.struct_info
        if body is None or is_base_of(f.ret_struct_info, body) or is_base_of(body, f.ret_struct_info):
            continue
        ret = function_return_struct_info(f.params, body, None)
        fixed[gv] = rx.Function(f.params, f.body, ret, f.is_pure, attrs=f.attrs, span=f.span)
    if not fixed:
        return after
    from .utils import renormalize

    return renormalize(IRModule({gv: fixed.get(gv, f) for gv, f in after.functions_items()}, after.attrs,
                                after.global_infos))


def _pass_info(p: Callable[[IRModule], IRModule]) -> PassInfo:
    if isinstance(p, Pass):
        return p.info
    return PassInfo(getattr(p, "name", getattr(p, "__name__", repr(p))))


class Sequential(Pass):
    """Run ``passes`` one after the other, skipping those the current context does not enable
    (PASS.INFRA.3). Plain callables ``mod -> mod`` are allowed and always enabled unless disabled
    by name."""

    def __init__(self, passes: Iterable[Callable[[IRModule], IRModule]], name: str = "Sequential",
                 opt_level: int = 0) -> None:
        self.passes: Sequence[Callable[[IRModule], IRModule]] = tuple(passes)
        self.name = name
        self.opt_level = opt_level

    def transform(self, mod: IRModule) -> IRModule:
        ctx = PassContext.current()
        for p in self.passes:
            if not ctx.pass_enabled(_pass_info(p)):
                continue
            mod = p(mod)
            if not isinstance(mod, IRModule):
                raise RelaxError(f"pass {_pass_info(p).name} in {self.name} returned "
                                 f"{type(mod).__name__}, not an IRModule")
        return mod

    def __repr__(self) -> str:
        return f"<pass {self.name}: {', '.join(_pass_info(p).name for p in self.passes)}>"


class FunctionPass(Pass):
    """A pass applied to each Relax function of the module (TVM's ``CreateFunctionPass``): the
    result keeps every other function; an unchanged function keeps its identity and the module is
    returned unchanged when no function changed. The new module is re-normalized with the plain
    normalizer (variables keep their declared struct info)."""

    @abstractmethod
    def transform_function(self, func: rx.Function, mod: IRModule, name: str) -> rx.Function:
        raise NotImplementedError(f"{type(self).__name__} must implement transform_function()")

    def transform(self, mod: IRModule) -> IRModule:
        return rewrite_functions(mod, lambda gv, func: self.transform_function(func, mod, gv.name_hint))


def map_functions(mod: IRModule, fn: Callable[[Any, Any], Any], kind: type = rx.Function) -> Optional[Dict[Any, Any]]:
    """The module's functions with ``fn(global_var, func)`` applied to those of ``kind`` and the others
    kept, in order; None when ``fn`` returned every function itself (the pass then returns ``mod``
    unchanged, PASS.INFRA.3)."""
    changed = False
    items = {}
    for gv, f in mod.functions_items():
        if isinstance(f, kind):
            nf = fn(gv, f)
            changed = changed or nf is not f
            items[gv] = nf
        else:
            items[gv] = f
    return items if changed else None


def rewrite_functions(mod: IRModule, fn: Callable[[Any, Any], Any], kind: type = rx.Function, *,
                      normalize: bool = True) -> IRModule:
    """``mod`` with :func:`map_functions` applied: the same module when nothing changed, otherwise a
    new one, re-normalized with the plain normalizer unless ``normalize`` is False."""
    from .utils import renormalize

    items = map_functions(mod, fn, kind)
    if items is None:
        return mod
    out = IRModule(items, mod.attrs, mod.global_infos)
    return renormalize(out) if normalize else out


class _FunctionPass(Pass):
    def __init__(self, fn: Callable[[IRModule], IRModule], name: str, opt_level: int = 0) -> None:
        self.fn = fn
        self.name = name
        self.opt_level = opt_level

    def transform(self, mod: IRModule) -> IRModule:
        return self.fn(mod)


def function_pass(fn: Callable[[IRModule], IRModule], name: Optional[str] = None, opt_level: int = 0) -> Pass:
    """Wrap ``fn(mod) -> mod`` as a named pass (kept for backward compatibility; the function gets
    the whole module -- see :func:`module_pass`)."""
    return _FunctionPass(fn, name or fn.__name__, opt_level)


def module_pass(fn: Callable[[IRModule], IRModule], name: Optional[str] = None, opt_level: int = 0) -> Pass:
    """Wrap ``fn(mod) -> mod`` as a named module pass."""
    return _FunctionPass(fn, name or fn.__name__, opt_level)


__all__ = [
    "PassInfo", "PassContext", "PassInstrument", "PassTiming", "PassTimingInstrument", "PassTraceInstrument",
    "WellFormedInstrument", "Pass", "Sequential", "FunctionPass", "function_pass", "module_pass",
    "register_config_option", "config_options", "map_functions", "rewrite_functions",
]
