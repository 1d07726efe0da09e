"""``BlockBuilder``: build Relax functions and modules from Python (TVM's ``relax.BlockBuilder``).

Usage::

    from relax_ref.builder import BlockBuilder, const, op, Tensor, var

    bb = BlockBuilder()
    n = bb.sym_var("n")
    x = var("x", Tensor((n, 4), "float32"))
    w = var("w", Tensor((4, 8), "float32"))
    with bb.function("main", [x, w], attrs={"num_input": 1}):
        with bb.dataflow():
            y = bb.emit(op.matmul(x, w))          # lv: R.Tensor((n, 8), "float32")
            z = bb.emit_output(op.nn.relu(op.add(y, const(1.0))))   # lv1 = y + 1; gv
        bb.emit_func_output(z)
    mod = bb.get()                                # normalized and checked for well-formedness

(``tests/builder/test_builder.py`` runs this example.)

Every ``emit`` goes through the normalizer (:class:`relax_ref.static.normalize.Normalizer`, plain
builder rules NORM.ANNOT.3): nested calls are bound to fresh variables (NORM.ANF.2), struct info is
inferred (NORM.INFER.*), and the returned ``Var`` carries it, so shapes are known while building.
Variable names follow TVM: ``lv``, ``lv1`` ... inside dataflow blocks, ``gv``, ``gv1`` ... outside,
unless a ``name_hint`` is given. Bindings outside ``with bb.dataflow()`` go to an ordinary binding
block.

Functions are added to the module under construction when their ``with bb.function(...)`` scope
ends; calls to them use ``bb.get_global_var(name)``. PrimFuncs are added with :meth:`add_func` or
generated from tensor expressions with :meth:`emit_te` / :meth:`call_te` (TIR.TE.BRIDGE).
:meth:`get` returns the module after the well-formedness check (WF.*), so a program produced by the
builder is well formed and prints and re-parses to a structurally equal module.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Union

from ..static.blocks import normalize_blocks
from ..static.normalize import Normalizer
from ..analysis.signatures import global_struct_info
from ..analysis.struct_info_ops import definable_sym_vars, erase_to_well_defined
from ..static.well_formed import check_well_formed
from ..errors import RelaxError, StructInfoError, WellFormedError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.attrs import Attrs
from ..ir.module import IRModule
from ..ir.struct_info import StructInfo, TupleStructInfo
from ._span import caller_span
from .values import sym_var as _sym_var

FuncLike = Union[rx.Function, tir.PrimFunc, rx.ExternFunc]


@dataclass
class _FunctionFrame:
    name: str
    params: List[rx.Var]
    attrs: Dict[str, Any]
    pure: bool
    norm: Normalizer
    blocks: List[rx.BindingBlock] = field(default_factory=list)
    scope: Dict[P.PrimVar, P.PrimVar] = field(default_factory=dict)
    in_dataflow: bool = False
    output: Optional[rx.Function] = None


class BlockBuilder:
    """Builds an IRModule function by function (see the module docstring)."""

    _stack: List["BlockBuilder"] = []

    def __init__(self, mod: Optional[IRModule] = None) -> None:
        self._gvars: Dict[str, rx.GlobalVar] = {}
        self._funcs: Dict[str, FuncLike] = {}
        self._module_attrs = mod.attrs if mod is not None else Attrs()
        self._global_infos = mod.global_infos if mod is not None else Attrs()
        self._prim_keys: Dict[Any, rx.GlobalVar] = {}
        self._frame: Optional[_FunctionFrame] = None
        if mod is not None:
            for gv, fn in mod.functions_items():
                self._put(gv.name_hint, fn, gv)

    # ------------------------------------------------------------------------------------------
    # The current builder (used by the module library)
    # ------------------------------------------------------------------------------------------
    @classmethod
    def current(cls) -> "BlockBuilder":
        """The builder whose ``function`` scope is innermost (WellFormedError when there is none)."""
        if not cls._stack:
            raise WellFormedError("no BlockBuilder function scope is active: use `with bb.function(...)`",
                                  caller_span())
        return cls._stack[-1]

    # ------------------------------------------------------------------------------------------
    # Symbolic variables
    # ------------------------------------------------------------------------------------------
    @staticmethod
    def sym_var(name: str, dtype: str = "int64") -> P.PrimVar:
        """A fresh symbolic variable (``int64`` by default: a shape dimension)."""
        return _sym_var(name, dtype)

    # ------------------------------------------------------------------------------------------
    # Module
    # ------------------------------------------------------------------------------------------
    def _module(self) -> IRModule:
        return IRModule({self._gvars[n]: f for n, f in self._funcs.items()}, self._module_attrs,
                        self._global_infos)

    def _put(self, name: str, func: FuncLike, gv: Optional[rx.GlobalVar] = None) -> rx.GlobalVar:
        """Bind ``name`` to ``func``, keeping ``gv`` (or the current GlobalVar of that name) when its
        struct info is the function's (WF.GLOBAL.1)."""
        sinfo = global_struct_info(func)
        gv = gv if gv is not None else self._gvars.get(name)
        if gv is None or gv.struct_info != sinfo:
            gv = rx.GlobalVar(name, struct_info=sinfo)
        self._gvars[name] = gv
        self._funcs[name] = func
        if self._frame is not None:
            self._frame.norm.module = self._module()
        if isinstance(func, tir.PrimFunc):
            from ..transform.legalize_ops import prim_func_key

            self._prim_keys.setdefault(prim_func_key(func), gv)
        return gv

    def _fresh_name(self, hint: str) -> str:
        if hint not in self._funcs and (self._frame is None or self._frame.name != hint):
            return hint
        k = 1
        while f"{hint}{k}" in self._funcs or (self._frame is not None and self._frame.name == f"{hint}{k}"):
            k += 1
        return f"{hint}{k}"

    def add_func(self, func: FuncLike, func_name: str) -> rx.GlobalVar:
        """Add a function under ``func_name`` (or ``func_name1``, ... when taken) and return its
        GlobalVar. A PrimFunc equal to one already in the module (up to variable, buffer and block
        names) is not added twice: the existing GlobalVar is returned (as TVM's builder does)."""
        if not isinstance(func, (rx.Function, tir.PrimFunc, rx.ExternFunc)):
            raise WellFormedError(f"add_func expects a Function, PrimFunc or ExternFunc, got {type(func).__name__}",
                                  caller_span())
        if isinstance(func, tir.PrimFunc):
            from ..transform.legalize_ops import prim_func_key

            hit = self._prim_keys.get(prim_func_key(func))
            if hit is not None:
                return hit
        if isinstance(func, rx.Function) and func.struct_info is None:
            raise StructInfoError(f"add_func: function {func_name} is not normalized (no struct info)",
                                  func.span or caller_span(), function=func_name)
        return self._put(self._fresh_name(func_name), func)

    def update_func(self, gv: Union[rx.GlobalVar, str], func: FuncLike) -> rx.GlobalVar:
        """Replace the function named by ``gv``; returns its GlobalVar. The GlobalVar object is kept
        when the struct info is unchanged; otherwise a new one is made, and calls built earlier
        still refer to the old object, which :meth:`get` reports (WF.GLOBAL.1)."""
        name = gv if isinstance(gv, str) else gv.name_hint
        if name not in self._funcs:
            raise WellFormedError(f"update_func: the module has no function named '{name}'", caller_span())
        return self._put(name, func)

    def get_global_var(self, name: str) -> rx.GlobalVar:
        """The GlobalVar of function ``name`` added so far."""
        try:
            return self._gvars[name]
        except KeyError:
            raise WellFormedError(f"the module has no function named '{name}' (yet)", caller_span()) from None

    def get(self, *, check: bool = True) -> IRModule:
        """The module built so far; checked for well-formedness (WF.*) unless ``check=False``."""
        if self._frame is not None:
            raise WellFormedError(f"function '{self._frame.name}' is still being built", caller_span())
        mod = self._module()
        if check:
            check_well_formed(mod)
        return mod

    finalize = get

    # ------------------------------------------------------------------------------------------
    # Functions
    # ------------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def function(self, name: str, params: Sequence[rx.Var], attrs: Optional[Dict[str, Any]] = None,
                 pure: bool = True, private: bool = False) -> Iterator[None]:
        """Scope of a Relax function ``name(params)``; end it with :meth:`emit_func_output`.

        ``attrs`` become function attributes; a non-private function gets ``global_symbol = name``
        (TEXT.FUNC.1); ``pure=False`` allows impure calls. The function is added to the module when
        the scope ends."""
        if self._frame is not None:
            raise WellFormedError(f"cannot start function '{name}' inside function '{self._frame.name}'",
                                  caller_span())
        if not isinstance(name, str) or not name.isidentifier():
            raise WellFormedError(f"function name must be an identifier, got {name!r}", caller_span())
        if name in self._funcs:
            raise WellFormedError(f"the module already has a function named '{name}'", caller_span(),
                                  function=name)
        params = list(params)
        seen = set()
        for p in params:
            if not isinstance(p, rx.Var) or isinstance(p, rx.DataflowVar):
                raise WellFormedError(f"function parameters must be Vars, got {p!r}", caller_span(), function=name)
            if p.struct_info is None:
                raise StructInfoError(f"parameter {p.name_hint} has no struct info (NORM.FUNC.2)", caller_span(),
                                      function=name, binding=p.name_hint)
            if id(p) in seen:
                raise WellFormedError(f"parameter {p.name_hint} is listed twice", caller_span(), function=name)
            seen.add(id(p))
        fattrs = dict(attrs or {})
        if not private:
            fattrs.setdefault("global_symbol", name)
        norm = Normalizer(self._module(), script_annotations=False)
        frame = _FunctionFrame(name, params, fattrs, pure, norm)
        for p in params:
            for v in definable_sym_vars(p.struct_info, tensor_var_shapes=False):
                frame.scope.setdefault(v, v)
        norm.begin_scope(params)
        norm.begin_binding_block()
        self._frame = frame
        BlockBuilder._stack.append(self)
        try:
            yield
            if frame.output is None:
                raise WellFormedError(f"function '{name}' ended without emit_func_output", caller_span(),
                                      function=name)
        finally:
            BlockBuilder._stack.pop()
            self._frame = None
        self._put(name, frame.output)

    def _require_frame(self, what: str) -> _FunctionFrame:
        if self._frame is None:
            raise WellFormedError(f"{what} must be called inside `with bb.function(...)`", caller_span())
        if self._frame.output is not None:
            raise WellFormedError(f"{what}: function '{self._frame.name}' already has its output",
                                  caller_span(), function=self._frame.name)
        return self._frame

    @contextlib.contextmanager
    def dataflow(self) -> Iterator[None]:
        """Scope of a dataflow block (EXPR.DATAFLOW.1): ``emit`` binds DataflowVars, ``emit_output``
        binds the Vars visible after the block."""
        frame = self._require_frame("dataflow")
        if frame.in_dataflow:
            raise WellFormedError("dataflow blocks cannot be nested", caller_span(), function=frame.name)
        frame.blocks.append(frame.norm.end_block())
        frame.norm.begin_dataflow_block()
        frame.in_dataflow = True
        try:
            yield
        finally:
            frame.in_dataflow = False
            frame.blocks.append(frame.norm.end_block())
            frame.norm.begin_binding_block()

    def emit_func_output(self, output: Union[rx.Expr, Sequence[rx.Expr]],
                         ret_struct_info: Optional[StructInfo] = None) -> None:
        """Finish the current function with ``output`` (a list/tuple becomes a Relax tuple).
        ``ret_struct_info`` is an optional return annotation; when it is a base of the body's
        struct info the inferred one is kept (NORM.FUNC.1)."""
        frame = self._require_frame("emit_func_output")
        if frame.in_dataflow:
            raise WellFormedError("emit_func_output must be called outside the dataflow block", caller_span(),
                                  function=frame.name)
        if isinstance(output, (list, tuple)):
            output = rx.Tuple(tuple(output), span=caller_span())
        if not isinstance(output, rx.Expr):
            raise WellFormedError(f"function output must be a Relax expression, got {output!r}", caller_span(),
                                  function=frame.name)
        norm = frame.norm
        with _context(frame):
            body = norm.normalize_argument(output)
        frame.blocks.append(norm.end_block())
        norm.end_scope()
        blocks = normalize_blocks(frame.blocks)
        body_si = erase_to_well_defined(body.struct_info, frame.scope, None, norm.analyzer)
        seq = rx.SeqExpr(tuple(blocks), body, struct_info=body_si, span=caller_span())
        frame.output = norm.make_function(frame.params, seq, ret_struct_info, frame.pure, Attrs(frame.attrs),
                                          caller_span())

    # ------------------------------------------------------------------------------------------
    # Bindings
    # ------------------------------------------------------------------------------------------
    def emit(self, expr: rx.Expr, name_hint: str = "") -> rx.Var:
        """Normalize ``expr`` and bind it to a fresh variable (a DataflowVar inside a dataflow
        block); returns the variable, which carries the inferred struct info."""
        frame = self._require_frame("emit")
        with _context(frame):
            return frame.norm.emit(self._expr(expr, "emit"), name_hint)

    def emit_output(self, expr: Union[rx.Expr, Sequence[rx.Expr]], name_hint: str = "") -> rx.Var:
        """Inside a dataflow block: bind ``expr`` to a Var that stays visible after the block."""
        frame = self._require_frame("emit_output")
        if not frame.in_dataflow:
            raise WellFormedError("emit_output must be called inside a dataflow block", caller_span(),
                                  function=frame.name)
        if isinstance(expr, (list, tuple)):
            expr = rx.Tuple(tuple(expr), span=caller_span())
        with _context(frame):
            return frame.norm.emit_output(self._expr(expr, "emit_output"), name_hint)

    def match_cast(self, value: rx.Expr, struct_info: StructInfo, name_hint: str = "") -> rx.Var:
        """Bind ``var = R.match_cast(value, struct_info)``: checked at run time; symbolic variables
        first seen in ``struct_info`` become defined (NORM.MATCHCAST.1-2)."""
        frame = self._require_frame("match_cast")
        if not isinstance(struct_info, StructInfo):
            raise StructInfoError(f"match_cast needs struct info, got {struct_info!r}", caller_span(),
                                  function=frame.name)
        with _context(frame):
            var = frame.norm.match_cast(self._expr(value, "match_cast"), struct_info, name_hint)
        for v in definable_sym_vars(struct_info, tensor_var_shapes=False):
            frame.scope.setdefault(v, v)
        return var

    emit_match_cast = match_cast

    def normalize(self, expr: rx.Expr) -> rx.Expr:
        """Normalize ``expr`` without binding it (nested non-leaf parts are bound)."""
        frame = self._require_frame("normalize")
        with _context(frame):
            return frame.norm.normalize_expr(self._expr(expr, "normalize"))

    def emit_normalized(self, binding: rx.Binding) -> None:
        """Append an already normalized binding."""
        frame = self._require_frame("emit_normalized")
        frame.norm.emit_normalized(binding)
        if isinstance(binding, rx.MatchCast):
            for v in definable_sym_vars(binding.struct_info, tensor_var_shapes=False):
                frame.scope.setdefault(v, v)

    def lookup_binding(self, var: rx.Var) -> Optional[rx.Expr]:
        """The value bound to ``var`` in the current function, or None."""
        frame = self._require_frame("lookup_binding")
        return frame.norm.lookup_binding(var)

    def _expr(self, e: Any, what: str) -> rx.Expr:
        if not isinstance(e, rx.Expr):
            raise WellFormedError(f"{what} expects a Relax expression, got {type(e).__name__} {e!r}", caller_span(),
                                  function=self._frame.name if self._frame else None)
        if isinstance(e, (rx.Call, rx.Tuple, rx.TupleGetItem, rx.If)) and e.span is None:
            return _with_span(e, caller_span())
        return e

    # ------------------------------------------------------------------------------------------
    # Tensor expressions -> call_tir (TIR.TE.BRIDGE)
    # ------------------------------------------------------------------------------------------
    def call_te(self, fte: Callable[..., Any], *args: Any, primfunc_name_hint: Optional[str] = None,
                **kwargs: Any) -> rx.Call:
        """TVM's ``bb.call_te``: run the tensor-expression function ``fte`` on placeholders for the
        Relax ``args``, add the generated PrimFunc to the module and return the ``call_tir``."""
        from ..ops.te_bridge import gen_call_tir_inputs
        from ..ops.registry import get

        self._require_frame("call_te")
        pieces = gen_call_tir_inputs(fte, list(args), kwargs)
        gv = self.add_func(pieces.func, primfunc_name_hint or getattr(fte, "__name__", "te_func"))
        outs = list(pieces.out_sinfo)
        sinfo: StructInfo = outs[0] if len(outs) == 1 else TupleStructInfo(tuple(outs))
        call_args: tuple = (gv, rx.Tuple(tuple(pieces.args)))
        if pieces.tir_vars is not None:
            call_args += (pieces.tir_vars,)
        return rx.Call(get("relax.call_tir").op, call_args, Attrs(), (sinfo,), span=caller_span())

    def emit_te(self, fte: Callable[..., Any], *args: Any, primfunc_name_hint: Optional[str] = None,
                name_hint: str = "", **kwargs: Any) -> rx.Var:
        """``emit(call_te(fte, *args, **kwargs))``."""
        return self.emit(self.call_te(fte, *args, primfunc_name_hint=primfunc_name_hint, **kwargs), name_hint)


@contextlib.contextmanager
def _context(frame: _FunctionFrame) -> Iterator[None]:
    """Name the function being built in errors raised while normalizing (ERR.1)."""
    try:
        yield
    except RelaxError as err:
        raise err.with_context(function=frame.name)


def _with_span(e: rx.Expr, span) -> rx.Expr:
    from dataclasses import replace

    return replace(e, span=span) if span is not None else e


__all__ = ["BlockBuilder"]
