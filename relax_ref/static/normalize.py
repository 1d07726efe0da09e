"""The normalizer: raw IR -> normalized IR (spec chapter NORM), following TVM 0.25's ``Normalizer``
(``src/relax/ir/block_builder.cc``) plus the TVMScript binding rules of its IR builder.

Entry points
============

* :func:`normalize_module(mod)` -- normalize every Relax function of a module and give every
  GlobalVar its ``FuncStructInfo`` (NORM.GLOBAL.*).
* :func:`normalize_function(func, module=None)` -- one function.
* :class:`Normalizer` -- a reusable BlockBuilder-like object for passes and the builder API:
  ``normalize_expr``, ``emit``, ``emit_output``, ``match_cast``, ``emit_normalized``,
  ``begin_scope``/``end_scope``, ``begin_dataflow_block``/``begin_binding_block``/``end_block``,
  ``lookup_binding``, ``make_function``.

What normalization does
=======================

* **ANF** (NORM.ANF.1): a non-leaf argument of a call, tuple field, ``TupleGetItem`` tuple, ``If``
  condition or ``SeqExpr`` body is bound to a fresh variable right before its user: a
  ``DataflowVar`` named ``lv``, ``lv1``, ... inside dataflow blocks, a ``Var`` named ``gv``,
  ``gv1``, ... elsewhere (TVM's naming; in script mode every source binding also consumes one name of
  the sequence, as TVMScript's builder does, so generated names match TVM's printout). Tuples count
  as leaves, their fields do not.
* **Inference** (NORM.INFER.*): every expression gets struct info. Leaves: ``Constant`` ->
  ``R.Tensor(shape, dtype)``; ``ShapeExpr`` -> ``R.Shape(values)``; ``PrimValue`` ->
  ``R.Prim(value=v)``; ``StringImm``/``DataTypeImm`` -> ``R.Object``; ``ExternFunc`` -> opaque impure
  callable; ``GlobalVar`` -> the FuncStructInfo of its function. Operator calls use the registry's
  ``infer(call, ctx)`` with an :class:`~relax_ref.analysis.context.InferContext` (an operator without
  ``infer`` is an ``UnsupportedError``); other calls use
  :func:`~relax_ref.analysis.struct_info_ops.derive_call_ret_struct_info`. ``If`` -> LCA of the
  branches erased to the enclosing scope (NORM.IF.1); ``SeqExpr`` -> its body's struct info erased to
  the symbolic variables in scope (NORM.SEQ.1). A call that already carries struct info is not
  re-inferred (as in TVM); the well-formedness checker re-infers it (WF.SINFO.2).
* **Operator hooks** (NORM.OPNORM.1): after inference an operator's ``normalize(call, ctx)`` hook
  runs; if it returns a different call, that call is normalized again.
* **Variables** (NORM.VAR.1): a ``Var``'s struct info is fixed at construction, so a binding
  variable whose struct info changes is recreated (same class, name and span) and every later use is
  remapped. Symbolic variables defined by parameters and ``MatchCast`` are tracked per scope.
* **Binding annotations** (NORM.ANNOT.1-3, TVMScript rules, ``script_annotations=True``): for
  ``y: S = value``, if ``value`` is a call without struct info (a "fresh" call) ``S`` is *stamped*
  onto it and no inference happens -- unless normalizing its arguments changed them (an ANF
  binding was introduced), in which case TVM rebuilds the call and infers, so the stamp is lost.
  Annotations on tuples/TupleGetItems built from fresh calls are likewise lost. If ``value`` already
  has struct info (a variable, a constant, a typed tuple, an ``If`` ...) the annotation must not be
  provably wrong -- ``struct_info_base_check(S, value) == FAIL_L0`` raises
  ``StructInfoError("Invalid annotation ...")`` -- and is otherwise ignored: ``y`` gets the value's
  struct info. With ``script_annotations=False`` (TVM's plain Normalizer) a variable keeps the
  struct info it was built with, and only unannotated variables get the value's.
* ``MatchCast`` (NORM.MATCHCAST.1-2): the variable gets exactly the target struct info; in script
  mode a provably impossible cast (``struct_info_base_check(value, target) == FAIL_L0``) is a
  ``StructInfoError``.
* **Functions** (NORM.FUNC.1): ``ret_struct_info`` is the body's struct info erased to the
  symbolic variables definable from the parameters when no return annotation is given *or* when the
  annotation is a base of the body's struct info (a less specific annotation is replaced); an
  annotation incompatible with the body is kept unchanged (checked only at run time).
* **GlobalVars** (NORM.GLOBAL.1-4, NORM.INFER.4): functions are normalized in module order; a call of a global
  function uses the struct info known when the call is normalized -- the final one for functions
  normalized earlier, the declared signature (return ``R.Object`` when unannotated) otherwise --
  exactly as TVMScript parsing does. At the end every GlobalVar is replaced by one carrying its
  function's final struct info.
* **Blocks** (NORM.BLOCK.1-2): a ``SeqExpr`` bound to a variable is flattened into the enclosing
  block sequence (a non-dataflow block using DataflowVars inside a dataflow binding is an error);
  adjacent blocks of the same kind are merged and empty blocks dropped.
* **Void quirk** (NORM.VOID.1): TVM rewrites every use of a (non-dataflow) ``Var`` whose struct info
  is ``R.Tuple()`` into the literal ``R.tuple()``. relax-ref follows TVM here so that normalized
  programs agree with TVM's.

Deviations from TVMScript (documented in the spec): TVMScript disables operator ``normalize`` hooks
while parsing, so ``R.call_tir(f, t, ...)`` with a tuple-typed *variable* ``t`` is rejected by its
well-formedness check; relax-ref applies the hooks (``apply_op_normalize=True``, like
``relax.transform.Normalize``), which inlines the tuple. An annotation on an ``If``/``SeqExpr``
value is treated like one on a typed value (TVMScript cannot express it).

The struct info of leaves, calls and functions that needs no normalizer state is in
:mod:`.inference`, the merging of blocks in :mod:`.blocks`.

``InferContext`` (see :mod:`relax_ref.analysis.context`) fields: ``analyzer``, ``module``, ``span``,
``binding``, ``function``, ``lookup_binding``; helpers ``error(msg)``, ``vdevice(i)``,
``lookup_function(gv)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ..analysis.context import InferContext, make_analyzer
from ..analysis.signatures import function_struct_info, global_struct_info
from ..analysis.struct_info_ops import (
    BaseCheckResult, definable_sym_vars, erase_to_well_defined, format_struct_info, struct_info_base_check,
    struct_info_lca,
)
from ..errors import ParseError, RelaxError, Span, StructInfoError, WellFormedError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.attrs import Attrs
from ..ir.module import IRModule
from ..ir.struct_info import StructInfo, TupleStructInfo, is_unit
from ..ops import registry
from .blocks import normalize_blocks
from .global_var_remap import GlobalVarRemapper
from .inference import (
    constant_struct_info, function_return_struct_info, infer_call_struct_info, leaf_struct_info,
    operator_struct_info,
)

_LEAVES = (rx.Var, rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm, rx.GlobalVar,
           rx.ExternFunc, rx.Op)
_MAX_OP_NORMALIZE_ROUNDS = 16


def _is_leaf_or_tuple(e) -> bool:
    """TVM's ``IsLeafOrTuple``: a leaf, or any Tuple (its fields are handled separately)."""
    return isinstance(e, _LEAVES) or isinstance(e, rx.Tuple)


def _unit_use(e: rx.Expr) -> rx.Expr:
    """(NORM.VOID.1) the use of a void-typed ``Var`` (one just bound to a lifted argument included, so
    that normalizing again changes nothing) is the literal ``R.tuple()``."""
    if type(e) is rx.Var and is_unit(e.struct_info):
        return rx.Tuple((), struct_info=TupleStructInfo(()), span=e.span)
    return e


class _NameSupply:
    """TVM's fresh-name supply: ``gv``, ``gv1``, ``gv2``, ... per prefix (per function)."""

    def __init__(self) -> None:
        self.used: Dict[str, int] = {}

    def fresh(self, prefix: str) -> str:
        if prefix not in self.used:
            self.used[prefix] = 0
            return prefix
        while True:
            self.used[prefix] += 1
            name = f"{prefix}{self.used[prefix]}"
            if name not in self.used:
                self.used[name] = 0
                return name


@dataclass
class _BlockFrame:
    is_dataflow: bool
    span: Optional[Span] = None
    bindings: List[rx.Binding] = field(default_factory=list)
    #: raw argument expression (by identity) -> the variable it was bound to (NORM.ANF.2)
    memo: Dict[int, Tuple[rx.Expr, rx.Var]] = field(default_factory=dict)


class Normalizer:
    """A BlockBuilder-like normalizer (see the module docstring for the rules).

    ``module`` is the context module (GlobalVar struct info, vdevices, PrimFuncs for validation);
    ``script_annotations`` selects the TVMScript binding-annotation rules (default) or TVM's plain
    Normalizer rule; ``apply_op_normalize`` runs operator ``normalize`` hooks."""

    def __init__(self, module: Optional[IRModule] = None, *, analyzer=None, script_annotations: bool = True,
                 apply_op_normalize: bool = True, unit_statements: Iterable[rx.Var] = ()) -> None:
        self.module = module
        self._unit_statements = set(unit_statements)
        self.analyzer = analyzer if analyzer is not None else make_analyzer()
        self.script_annotations = script_annotations
        self.apply_op_normalize = apply_op_normalize
        self._blocks: List[_BlockFrame] = []
        self._scopes: List[Dict[P.PrimVar, P.PrimExpr]] = []
        self._binding_table: Dict[rx.Var, rx.Expr] = {}
        self.var_remap: Dict[rx.Var, rx.Expr] = {}
        self._defined: set = set()
        self._names = _NameSupply()
        self._function: Optional[str] = None
        self._binding: Optional[str] = None
        # GlobalVar handling (NORM.GLOBAL.*): every GlobalVar object seen or made for a module
        # function -> its name; name -> the object carrying the struct info known now
        self._gv_known: Dict[rx.GlobalVar, str] = {}
        self._gv_current: Dict[str, rx.GlobalVar] = {}
        if module is not None:
            for gv, fn in module.functions_items():
                self._gv_known[gv] = gv.name_hint
                cur = gv if gv.struct_info is not None else rx.GlobalVar(
                    gv.name_hint, struct_info=global_struct_info(fn), span=gv.span)
                self._gv_known[cur] = gv.name_hint
                self._gv_current[gv.name_hint] = cur

    # ------------------------------------------------------------------------------------------
    # Context
    # ------------------------------------------------------------------------------------------
    def context(self, span: Optional[Span] = None) -> InferContext:
        return InferContext(self.analyzer, self.module, span, self._binding, self._function,
                            self.lookup_binding)

    def lookup_binding(self, var: rx.Var) -> Optional[rx.Expr]:
        """The value bound to ``var`` by an emitted VarBinding, or None."""
        return self._binding_table.get(var)

    def update_global(self, name: str, sinfo: StructInfo) -> rx.GlobalVar:
        """Make later references to global ``name`` carry ``sinfo`` (NORM.GLOBAL.4)."""
        old = self._gv_current.get(name)
        if old is not None and old.struct_info == sinfo:
            return old
        gv = rx.GlobalVar(name, struct_info=sinfo, span=old.span if old is not None else None)
        self._gv_current[name] = gv
        self._gv_known[gv] = name
        return gv

    # ------------------------------------------------------------------------------------------
    # Scopes and blocks
    # ------------------------------------------------------------------------------------------
    def begin_scope(self, params: Optional[Sequence[rx.Var]] = None) -> None:
        """Open a function scope (``params`` given: fresh, defining their symbolic variables) or an
        inner scope inheriting the current symbolic variables (``params`` None)."""
        if params is not None:
            self._scopes.append({})
            for p in params:
                self._add_definitions(p)
        else:
            self._scopes.append(dict(self._scopes[-1]) if self._scopes else {})

    def end_scope(self) -> None:
        self._scopes.pop()

    def begin_dataflow_block(self, span: Optional[Span] = None) -> None:
        self._blocks.append(_BlockFrame(True, span))

    def begin_binding_block(self, span: Optional[Span] = None) -> None:
        self._blocks.append(_BlockFrame(False, span))

    def end_block(self) -> rx.BindingBlock:
        frame = self._blocks.pop()
        cls = rx.DataflowBlock if frame.is_dataflow else rx.BindingBlock
        return cls(tuple(frame.bindings), span=frame.span)

    def current_block_is_dataflow(self) -> bool:
        return bool(self._blocks) and self._blocks[-1].is_dataflow

    def _frame(self) -> _BlockFrame:
        if not self._blocks:
            raise WellFormedError("cannot bind a non-leaf expression outside a binding block",
                                  function=self._function, binding=self._binding)
        return self._blocks[-1]

    def _add_definitions(self, var: rx.Var) -> None:
        """Symbolic variables occurring bare in ``var``'s struct info become defined (NORM.SCOPE.1)."""
        if not self._scopes or var.struct_info is None:
            return
        scope = self._scopes[-1]
        for v in definable_sym_vars(var.struct_info, tensor_var_shapes=False):
            scope.setdefault(v, v)

    def _erase_in_scope(self, si: StructInfo) -> StructInfo:
        if not self._scopes:
            return si
        return erase_to_well_defined(si, self._scopes[-1], None, self.analyzer)

    # ------------------------------------------------------------------------------------------
    # Emission (builder API)
    # ------------------------------------------------------------------------------------------
    def _new_var(self, is_dataflow: bool, name_hint: str, si: StructInfo, span=None) -> rx.Var:
        name = self._names.fresh(name_hint or ("lv" if is_dataflow else "gv"))
        cls = rx.DataflowVar if is_dataflow else rx.Var
        return cls(name_hint=name, struct_info=si, span=span)

    def emit(self, expr: rx.Expr, name_hint: str = "") -> rx.Var:
        """Normalize ``expr`` and bind it to a fresh variable in the current block."""
        frame = self._frame()
        value = self.normalize_expr(expr)
        return self._emit_value(value, frame.is_dataflow, name_hint)

    def _emit_value(self, value: rx.Expr, is_dataflow: bool, name_hint: str = "") -> rx.Var:
        frame = self._frame()
        var = self._new_var(is_dataflow, name_hint, value.struct_info, value.span)
        frame.bindings.append(rx.VarBinding(var, value, span=value.span))
        self._binding_table[var] = value
        return var

    def emit_output(self, expr: rx.Expr, name_hint: str = "") -> rx.Var:
        """Like :meth:`emit` inside a dataflow block, binding a non-dataflow ``Var``."""
        if not self.current_block_is_dataflow():
            raise WellFormedError("emit_output has to be called inside a dataflow block")
        value = self.normalize_expr(expr)
        return self._emit_value(value, False, name_hint)

    def match_cast(self, value: rx.Expr, sinfo: StructInfo, name_hint: str = "") -> rx.Var:
        """Emit ``var = R.match_cast(value, sinfo)`` (NORM.MATCHCAST.1-2)."""
        frame = self._frame()
        value = self.normalize_expr(value)
        self._check_match_cast(value, sinfo, None)
        var = self._new_var(frame.is_dataflow, name_hint, sinfo, value.span)
        frame.bindings.append(rx.MatchCast(var, value, sinfo, span=value.span))
        self._add_definitions(var)
        return var

    emit_match_cast = match_cast

    def emit_normalized(self, binding: rx.Binding) -> None:
        """Append an already normalized binding to the current block."""
        frame = self._frame()
        if not frame.is_dataflow and isinstance(binding.var, rx.DataflowVar):
            raise WellFormedError(f"DataflowVar {binding.var.name_hint} cannot be emitted in a "
                                  f"non-dataflow block", binding.span, binding=binding.var.name_hint)
        if binding.var.struct_info is None or getattr(binding.value, "struct_info", None) is None:
            raise WellFormedError("emit_normalized needs a binding whose variable and value have "
                                  "struct info", binding.span, binding=binding.var.name_hint)
        frame.bindings.append(binding)
        if isinstance(binding, rx.MatchCast):
            self._add_definitions(binding.var)
        else:
            self._binding_table[binding.var] = binding.value

    def _check_match_cast(self, value: rx.Expr, sinfo: StructInfo, span) -> None:
        """(NORM.MATCHCAST.2) a cast that can never succeed is an error."""
        if struct_info_base_check(value.struct_info, sinfo, self.analyzer) == BaseCheckResult.FAIL_L0:
            raise StructInfoError(
                f"It is impossible to match cast: no value of struct info {format_struct_info(value.struct_info)} "
                f"has struct info {format_struct_info(sinfo)}", span or value.span,
                binding=self._binding, function=self._function)

    # ------------------------------------------------------------------------------------------
    # Expressions
    # ------------------------------------------------------------------------------------------
    def normalize_expr(self, expr: rx.Expr) -> rx.Expr:
        """Normalize ``expr``: nested non-leaf subexpressions are emitted into the current block;
        the result has struct info (unless it is an ``Op``)."""
        out = self._visit(expr)
        if out.struct_info is None and not isinstance(out, rx.Op):
            raise StructInfoError(f"internal: normalized {type(out).__name__} has no struct info", out.span)
        return out

    normalize = normalize_expr

    def _memo_lookup(self, e) -> Optional[rx.Var]:
        if self._blocks:
            hit = self._blocks[-1].memo.get(id(e))
            if hit is not None and hit[0] is e:
                return hit[1]
        return None

    def _visit(self, e) -> rx.Expr:
        hit = self._memo_lookup(e)
        if hit is not None:
            return hit
        return self._dispatch(e)[0]

    def normalize_argument(self, e: rx.Expr) -> rx.Expr:
        """Normalize ``e`` and bind it to a fresh variable unless it is a leaf or a tuple."""
        return self._arg(e)[0]

    def _arg(self, e) -> Tuple[rx.Expr, bool]:
        """NormalizeArgument: returns (expr, changed-in-TVM's-sense)."""
        hit = self._memo_lookup(e)
        if hit is not None:
            return _unit_use(hit), True
        post, changed = self._dispatch(e)
        if _is_leaf_or_tuple(e):
            return post, changed
        frame = self._frame()
        var = self._emit_value(post, frame.is_dataflow)
        frame.memo[id(e)] = (e, var)
        return _unit_use(var), True

    def _dispatch(self, e) -> Tuple[rx.Expr, bool]:
        if isinstance(e, tir.PrimFunc):
            raise WellFormedError("Inline PrimFunc is disallowed in Relax IR", e.span,
                                  binding=self._binding, function=self._function)
        if isinstance(e, rx.Var):
            return self._visit_var(e)
        if isinstance(e, rx.GlobalVar):
            return self._visit_global_var(e), False
        if isinstance(e, rx.Op):
            return e, False
        if isinstance(e, _LEAVES):
            if e.struct_info is not None:
                return e, False
            return replace(e, struct_info=leaf_struct_info(e)), False
        if isinstance(e, rx.Tuple):
            return self._visit_tuple(e)
        if isinstance(e, rx.Call):
            return self._visit_call(e), False
        if isinstance(e, rx.TupleGetItem):
            return self._visit_tuple_get_item(e)
        if isinstance(e, rx.If):
            return self._visit_if(e), False
        if isinstance(e, rx.SeqExpr):
            return self._visit_seq(e), False
        if isinstance(e, rx.Function):
            return self._visit_function(e), False
        raise StructInfoError(f"cannot normalize {type(e).__name__} {e!r}", getattr(e, "span", None),
                              binding=self._binding, function=self._function)

    def _visit_var(self, v: rx.Var) -> Tuple[rx.Expr, bool]:
        new = self.var_remap.get(v, v)
        if not isinstance(new, rx.Var):
            return new, True
        if new.struct_info is None:
            raise WellFormedError(f"Var {v.name_hint} is not defined", v.span, binding=self._binding,
                                  function=self._function)
        if type(new) is rx.Var and is_unit(new.struct_info):
            # (NORM.VOID.1) a use of a void-typed Var becomes the literal R.tuple()
            return rx.Tuple((), struct_info=TupleStructInfo(()), span=v.span), True
        return new, False

    def _visit_global_var(self, gv: rx.GlobalVar) -> rx.GlobalVar:
        name = self._gv_known.get(gv)
        if name is not None:
            return self._gv_current[name]
        if gv.struct_info is not None:
            return gv
        raise WellFormedError(f"GlobalVar {gv.name_hint} is not defined in the module", gv.span,
                              binding=self._binding, function=self._function)

    def _visit_tuple(self, t: rx.Tuple) -> Tuple[rx.Expr, bool]:
        fields = []
        changed = False
        for f in t.fields:
            nf, c = self._arg(f)
            fields.append(nf)
            changed = changed or c
        if all(a is b for a, b in zip(fields, t.fields)) and t.struct_info is not None:
            return t, False
        si = TupleStructInfo(tuple(f.struct_info for f in fields))
        return rx.Tuple(tuple(fields), struct_info=si, span=t.span), changed

    def _visit_tuple_get_item(self, e: rx.TupleGetItem) -> Tuple[rx.Expr, bool]:
        tup, changed = self._arg(e.tuple_value)
        tsi = tup.struct_info
        if not isinstance(tsi, TupleStructInfo):
            raise StructInfoError(
                f"TupleGetItem needs a tuple, but the expression has struct info {format_struct_info(tsi)}",
                e.span, binding=self._binding, function=self._function)
        if e.index < 0 or e.index >= len(tsi.fields):
            raise StructInfoError(
                f"Index out of bounds: Tuple of size {len(tsi.fields)} cannot be accessed with index "
                f"{e.index}", e.span, binding=self._binding, function=self._function)
        si = tsi.fields[e.index]
        if tup is e.tuple_value and e.struct_info is not None:
            return e, False
        return rx.TupleGetItem(tup, e.index, struct_info=si, span=e.span), changed

    def _visit_call(self, call: rx.Call, stamp: Optional[StructInfo] = None) -> rx.Expr:
        op, op_changed = self._arg(call.op)
        args = []
        changed = op_changed
        for a in call.args:
            na, c = self._arg(a)
            args.append(na)
            changed = changed or c
        same_objects = op is call.op and all(x is y for x, y in zip(args, call.args))
        if same_objects and call.struct_info is not None:
            new = call
        elif changed:
            # TVM rebuilds the call (dropping a stamped annotation) and infers (NORM.ANNOT.1)
            new = rx.Call(op, tuple(args), call.attrs, call.sinfo_args, span=call.span)
        else:
            si = call.struct_info if call.struct_info is not None else stamp
            new = rx.Call(op, tuple(args), call.attrs, call.sinfo_args, struct_info=si, span=call.span)
        if new.struct_info is None:
            new = replace(new, struct_info=self._infer_call(new))
        return self._apply_op_normalize(new)

    def _apply_op_normalize(self, call: rx.Call) -> rx.Expr:
        if not self.apply_op_normalize or not isinstance(call.op, rx.Op):
            return call
        opdef = registry.get(call.op.name)
        if opdef.normalize is None:
            return call
        cur = call
        for _ in range(_MAX_OP_NORMALIZE_ROUNDS):
            ctx = self.context(cur.span)
            try:
                out = opdef.normalize(cur, ctx)
            except RelaxError as err:
                raise err.with_span(cur.span).with_context(binding=self._binding, function=self._function)
            if out is cur:
                return cur
            nxt = self._visit(out)
            if not isinstance(nxt, rx.Call) or not isinstance(nxt.op, rx.Op) or nxt.op.name != call.op.name:
                return nxt
            cur = nxt
        raise StructInfoError(f"normalize hook of {call.op.name} did not reach a fixed point", call.span,
                              binding=self._binding, function=self._function)

    def _infer_call(self, call: rx.Call) -> StructInfo:
        """Struct info of a call whose callee and arguments are normalized (NORM.INFER.1-2)."""
        ctx = self.context(call.span)
        try:
            si = infer_call_struct_info(call, ctx)
        except RelaxError as err:
            raise err.with_span(call.span).with_context(binding=self._binding, function=self._function)
        return si

    def _visit_if(self, e: rx.If) -> rx.Expr:
        cond, _ = self._arg(e.cond)
        t = self._visit_with_new_scope(e.true_branch)
        f = self._visit_with_new_scope(e.false_branch)
        si = struct_info_lca(self._erase_in_scope(t.struct_info), self._erase_in_scope(f.struct_info),
                             self.analyzer)
        return rx.If(cond, t, f, struct_info=si, span=e.span)

    def _visit_with_new_scope(self, e: rx.Expr, params: Optional[Sequence[rx.Var]] = None) -> rx.SeqExpr:
        self.begin_scope(params)
        try:
            if isinstance(e, rx.SeqExpr):
                return self._visit_seq(e)
            self.begin_binding_block()
            post, _ = self._arg(e)
            prologue = self.end_block()
            blocks = (prologue,) if prologue.bindings else ()
            return rx.SeqExpr(blocks, post, struct_info=self._erase_in_scope(post.struct_info),
                              span=getattr(e, "span", None))
        finally:
            self.end_scope()

    def _visit_seq(self, seq: rx.SeqExpr) -> rx.SeqExpr:
        blocks = [self._visit_block(b) for b in seq.blocks]
        if self.current_block_is_dataflow():
            self.begin_dataflow_block()
        else:
            self.begin_binding_block()
        body, _ = self._arg(seq.body)
        prologue = self.end_block()
        if prologue.bindings:
            blocks.append(prologue)
        blocks = normalize_blocks(blocks)
        return rx.SeqExpr(tuple(blocks), body, struct_info=self._erase_in_scope(body.struct_info),
                          span=seq.span)

    def _visit_block(self, block: rx.BindingBlock) -> rx.BindingBlock:
        if isinstance(block, rx.DataflowBlock):
            self.begin_dataflow_block(block.span)
        else:
            self.begin_binding_block(block.span)
        try:
            for b in block.bindings:
                self._visit_binding(b)
        except BaseException:
            self._blocks.pop()
            raise
        return self.end_block()

    # ------------------------------------------------------------------------------------------
    # Bindings
    # ------------------------------------------------------------------------------------------
    def _define_var(self, raw: rx.Var, si: StructInfo, span) -> rx.Var:
        """The variable to bind: ``raw`` itself when its struct info already is ``si``, else a copy
        with ``si`` and uses remapped (NORM.VAR.1)."""
        if raw in self._defined:
            raise WellFormedError(f"Var {raw.name_hint} is defined more than once", span or raw.span,
                                  binding=raw.name_hint, function=self._function)
        self._defined.add(raw)
        if raw.struct_info is si or raw.struct_info == si:
            return raw
        new = type(raw)(name_hint=raw.name_hint, struct_info=si, span=raw.span)
        self.var_remap[raw] = new
        return new

    def _visit_binding(self, b: rx.Binding) -> None:
        saved = self._binding
        self._binding = b.var.name_hint
        try:
            if isinstance(b, rx.MatchCast):
                self._visit_match_cast(b)
            elif isinstance(b, rx.VarBinding):
                self._visit_var_binding(b)
            else:
                raise WellFormedError(f"unknown binding kind {type(b).__name__}", b.span)
        except RelaxError as err:
            raise err.with_span(b.span).with_context(binding=b.var.name_hint, function=self._function)
        finally:
            self._binding = saved

    def _consume_source_name(self) -> None:
        if self.script_annotations:
            self._names.fresh("lv" if self.current_block_is_dataflow() else "gv")

    def _visit_var_binding(self, b: rx.VarBinding) -> None:
        frame = self._frame()
        if not frame.is_dataflow and isinstance(b.var, rx.DataflowVar):
            raise WellFormedError(f"DataflowVar {b.var.name_hint} is defined outside DataflowBlock",
                                  b.span or b.var.span, binding=b.var.name_hint, function=self._function)
        annot = b.var.struct_info
        raw_value = b.value
        if isinstance(raw_value, rx.Function) and annot is not None:
            # (NORM.ANNOT.4) a local function bound to a pre-declared variable (TVMScript does this
            # for recursive local functions): the variable keeps its declared struct info
            value = self._visit(raw_value)
            var = self._define_var(b.var, annot, b.span)
            frame.bindings.append(rx.VarBinding(var, value, span=b.span))
            self._binding_table[var] = value
            return
        if self.script_annotations and annot is not None and isinstance(raw_value, rx.Call) \
                and raw_value.struct_info is None:
            value = self._visit_call_value(raw_value, annot)  # stamping (NORM.ANNOT.1)
        elif self.script_annotations and annot is not None and not _typed_at_construction(raw_value, self):
            value = self._visit(raw_value)  # fresh tuple / TupleGetItem: the stamp is lost (NORM.ANNOT.1)
        else:
            value = self._visit(raw_value)
            if self.script_annotations and annot is not None:
                # (NORM.ANNOT.2) the annotation must not be provably wrong; it is then ignored
                if struct_info_base_check(annot, value.struct_info, self.analyzer) == BaseCheckResult.FAIL_L0:
                    raise StructInfoError(
                        f"Invalid annotation: the value has struct info {format_struct_info(value.struct_info)}, "
                        f"which can never match the annotation {format_struct_info(annot)}", b.span or b.var.span,
                        binding=b.var.name_hint, function=self._function)
        if b.var in self._unit_statements and not is_unit(value.struct_info):
            # (TEXT.STMT.6) an expression statement of the text must have a unit value
            raise ParseError(f"Non-void relax expressions must be bound to a variable: this statement's value has "
                             f"struct info {format_struct_info(value.struct_info)}", b.span or b.var.span,
                             binding=b.var.name_hint, function=self._function)
        if self.script_annotations or annot is None:
            si = value.struct_info
        else:
            si = annot  # (NORM.ANNOT.3) plain normalizer: a typed variable keeps its struct info
        self._consume_source_name()
        var = self._define_var(b.var, si, b.span)
        frame = self._frame()
        frame.bindings.append(rx.VarBinding(var, value, span=b.span))
        self._binding_table[var] = value

    def _visit_call_value(self, call: rx.Call, stamp: StructInfo) -> rx.Expr:
        hit = self._memo_lookup(call)
        if hit is not None:
            return hit
        return self._visit_call(call, stamp)

    def _visit_match_cast(self, b: rx.MatchCast) -> None:
        frame = self._frame()
        if not frame.is_dataflow and isinstance(b.var, rx.DataflowVar):
            raise WellFormedError(f"DataflowVar {b.var.name_hint} is defined outside DataflowBlock",
                                  b.span or b.var.span, binding=b.var.name_hint, function=self._function)
        value = self._visit(b.value)
        if b.struct_info is None:
            raise StructInfoError("MatchCast needs a target struct info", b.span, binding=b.var.name_hint)
        if self.script_annotations:
            self._check_match_cast(value, b.struct_info, b.span)
            si = b.struct_info
        else:
            si = b.var.struct_info if b.var.struct_info is not None else b.struct_info
        self._consume_source_name()
        var = self._define_var(b.var, si, b.span)
        frame.bindings.append(rx.MatchCast(var, value, b.struct_info, span=b.span))
        self._add_definitions(var)

    # ------------------------------------------------------------------------------------------
    # Functions
    # ------------------------------------------------------------------------------------------
    def _visit_function(self, func: rx.Function) -> rx.Function:
        """A function literal: normalized with a fresh block stack and name supply (as TVMScript
        builds each function with its own builder)."""
        saved = (self._blocks, self._names)
        self._blocks, self._names = [], _NameSupply()
        try:
            return self._function_impl(func)
        finally:
            self._blocks, self._names = saved

    def _function_impl(self, func: rx.Function) -> rx.Function:
        for p in func.params:
            if p.struct_info is None:
                raise StructInfoError(f"parameter {p.name_hint} has no struct info annotation (NORM.FUNC.2)", p.span,
                                      function=self._function)
            self._defined.add(p)
        if func.body is None:
            raise WellFormedError("function has no body", func.span, function=self._function)
        body = self._visit_with_new_scope(func.body, func.params)
        return self.make_function(func.params, body, func.ret_struct_info, func.is_pure, func.attrs,
                                  func.span)

    def make_function(self, params: Sequence[rx.Var], body: rx.SeqExpr, ret_struct_info: Optional[StructInfo],
                      is_pure: bool = True, attrs=None, span: Optional[Span] = None) -> rx.Function:
        """Build a Function from a normalized body applying the return rule (NORM.FUNC.1)."""
        ret = function_return_struct_info(params, body.struct_info, ret_struct_info, self.analyzer)
        f = rx.Function(tuple(params), body, ret, is_pure, attrs=attrs if attrs is not None else Attrs(),
                        span=span)
        return replace(f, struct_info=function_struct_info(f))

    def normalize_function(self, func: rx.Function, name: Optional[str] = None) -> rx.Function:
        """Normalize a top-level function (``name`` is used in error messages)."""
        saved = (self._function, self._names, self._blocks)
        self._function = name if name is not None else func.global_symbol
        self._names, self._blocks = _NameSupply(), []
        try:
            return self._function_impl(func)
        finally:
            self._function, self._names, self._blocks = saved

    # ------------------------------------------------------------------------------------------
    # Modules
    # ------------------------------------------------------------------------------------------
    def normalize_module(self, mod: IRModule) -> IRModule:
        """Normalize every Relax function of ``mod`` (the module given at construction)."""
        new_funcs: Dict[str, object] = {}
        for gv, fn in mod.functions_items():
            if isinstance(fn, rx.Function):
                nf = self.normalize_function(fn, gv.name_hint)
                self.update_global(gv.name_hint, nf.struct_info)
                new_funcs[gv.name_hint] = nf
            else:
                new_funcs[gv.name_hint] = fn
        final: Dict[str, rx.GlobalVar] = {}
        for gv, fn in mod.functions_items():
            name = gv.name_hint
            f = new_funcs[name]
            si = f.struct_info if isinstance(f, rx.Function) else global_struct_info(f)
            if gv.struct_info is not None and gv.struct_info == si:
                final[name] = gv
            else:
                cur = self._gv_current.get(name)
                final[name] = cur if cur is not None and cur.struct_info == si else \
                    rx.GlobalVar(name, struct_info=si, span=gv.span)
        stale = {}
        for g, name in self._gv_known.items():
            target = final.get(name)
            if target is not None and g is not target:
                stale[g] = target
        if stale:
            for name, f in list(new_funcs.items()):
                if isinstance(f, rx.Function):
                    new_funcs[name] = GlobalVarRemapper(stale).function(f)
        out = IRModule({final[n]: new_funcs[n] for n in new_funcs}, mod.attrs, mod.global_infos)
        return out


def _typed_at_construction(e, n: Normalizer) -> bool:
    """Whether TVM would give ``e`` struct info when constructing it (so a binding annotation is
    checked and ignored rather than stamped) (NORM.ANNOT.2)."""
    if isinstance(e, rx.Expr) and e.struct_info is not None:
        return True
    if isinstance(e, (rx.Var, rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm,
                      rx.ExternFunc, rx.GlobalVar, rx.Function, rx.If, rx.SeqExpr)):
        return True
    if isinstance(e, rx.Tuple):
        return all(_typed_at_construction(f, n) for f in e.fields)
    if isinstance(e, rx.TupleGetItem):
        t = e.tuple_value
        if isinstance(t, rx.Var):
            t = n.var_remap.get(t, t)
            return isinstance(t.struct_info, TupleStructInfo)
        return isinstance(t, rx.Tuple) and _typed_at_construction(t, n)
    return False


def normalize_module(mod: IRModule, *, script_annotations: bool = True,
                     apply_op_normalize: bool = True, unit_statements: Iterable[rx.Var] = ()) -> IRModule:
    """Normalize every Relax function of ``mod``; PrimFuncs and ExternFuncs are kept (NORM.*).

    ``unit_statements`` are the variables the parser bound to expression statements of the text; a
    binding of one of them to a value whose struct info is not unit is a ParseError (TEXT.STMT.6)."""
    return Normalizer(mod, script_annotations=script_annotations, apply_op_normalize=apply_op_normalize,
                      unit_statements=unit_statements).normalize_module(mod)


def normalize_function(func: rx.Function, module: Optional[IRModule] = None, *,
                       script_annotations: bool = True, apply_op_normalize: bool = True) -> rx.Function:
    """Normalize one function; GlobalVars are resolved against ``module``."""
    return Normalizer(module, script_annotations=script_annotations,
                      apply_op_normalize=apply_op_normalize).normalize_function(func)


__all__ = [
    "Normalizer", "InferContext", "normalize_module", "normalize_function", "normalize_blocks",
    "infer_call_struct_info", "operator_struct_info", "function_return_struct_info", "constant_struct_info",
    "leaf_struct_info",
]
