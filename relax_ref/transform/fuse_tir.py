"""FuseTIR: turn primitive Relax functions into single PrimFuncs (PASS.FUSETIR.*).

Follows TVM 0.25 (``src/relax/transform/fuse_tir.cc``, ``expand_tuple_arguments.cc``,
``remove_unused_parameters.cc``). ``FuseTIR`` is the sequence ExpandTupleArguments,
RemoveUnusedParameters, the fusion proper, DeadCodeElimination.

* :class:`ExpandTupleArguments` (PASS.FUSETIR.1): a private function's tuple parameter ``p`` is
  replaced by parameters ``p_0``, ``p_1``, ... (recursively), rebound to a tuple at the start of the
  body; callers pass ``TupleGetItem``s. Followed by CanonicalizeBindings and DeadCodeElimination.
* :class:`RemoveUnusedParameters` (PASS.FUSETIR.2): a private function's parameters not used by
  its body are dropped; symbolic variables the body still needs but no remaining parameter defines
  are passed as new ``param_<name>: R.Prim(value=<name>)`` parameters, whose arguments are inferred
  from the call's old arguments.
* **Fusion** (PASS.FUSETIR.3) of each ``Primitive`` function -- a dataflow block of ``call_tir`` /
  ``call_tir_inplace`` and ``TupleGetItem`` bindings -- into one PrimFunc of the same name:

  - parameters: one buffer per tensor parameter (named like it, shape and dtype from its struct
    info, handle parameter ``p_<name>``), then the output buffers (``p_output0``, ...), then the
    scalar parameters (the variables of ``R.Prim``/``R.Shape`` parameters);
  - body: the bodies of the callees' root blocks, each callee first copied with fresh variables
    and buffers, in binding order, inside a new root block that allocates every intermediate
    result (named ``<callee buffer>_intermediate``, de-duplicated with ``_1``, ``_2``, ...) and the
    callees' own root allocations; callee buffers are replaced by the buffers they are bound to
    and callee symbolic variables by the matching caller expressions (a provably inconsistent
    match is an error); duplicate read/write regions of one buffer keep the first; block names are
    de-duplicated (``compute``, ``compute1``, ...); attribute ``tir.noalias``;
  - an output that is an input buffer (in-place) becomes an in-place index.

  relax-ref addition (PASS.FUSETIR.4): assertions leading a callee's body (relax-ref's legalization
  guards some kernels, e.g. symbolic reshapes, with one) are kept, in order, around the fused root
  block.

  Every call of a primitive function becomes ``R.call_tir(fused, (tensor args...),
  out_sinfo=<the call's struct info>, tir_vars=R.shape([scalar args...]))`` (``call_tir_inplace``
  with in-place outputs); the primitive functions are removed, and dead-code elimination then
  drops the PrimFuncs no longer called.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ..analysis.free_vars import free_symbolic_vars, free_vars
from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.attrs import Attrs
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from ..ir.struct_info import (
    PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo,
)
from .canonicalize_bindings import CanonicalizeBindings, infer_symbolic_var_map
from .dead_code_elimination import DeadCodeElimination, remove_all_unused
from .pass_infra import Pass, Sequential
from .tir_utils import BlockNameDeduplicator, TIRRewriter, flatten_seq, renew_defs, split_leading_asserts
from .utils import renormalize


def _is_private(f) -> bool:
    return f.attrs.get("global_symbol") is None


# ---------------------------------------------------------------------------------------------------
# ExpandTupleArguments (PASS.FUSETIR.1)
# ---------------------------------------------------------------------------------------------------


def _expand_params(func: rx.Function) -> Optional[rx.Function]:
    if not _is_private(func) or not any(isinstance(p.struct_info, TupleStructInfo) for p in func.params):
        return None
    params: List[rx.Var] = []
    bindings: List[rx.Binding] = []

    def expand(p: rx.Var) -> None:
        s = p.struct_info
        if isinstance(s, TupleStructInfo):
            items = []
            for i, f in enumerate(s.fields):
                np_ = rx.Var(name_hint=f"{p.name_hint}_{i}", struct_info=f)
                items.append(np_)
                expand(np_)
            bindings.append(rx.VarBinding(p, rx.Tuple(tuple(items))))
        else:
            params.append(p)

    for p in func.params:
        expand(p)
    body = func.body
    new_body = rx.SeqExpr((rx.BindingBlock(tuple(bindings)),) + tuple(body.blocks), body.body, span=body.span)
    return rx.Function(tuple(params), new_body, func.ret_struct_info, func.is_pure, attrs=func.attrs,
                       span=func.span)


class _CallRewriter(ExprMutator):
    """Rewrites calls of the given functions with ``fix(call) -> call``."""

    def __init__(self, fixes: Dict[str, object]) -> None:
        super().__init__()
        self.fixes = fixes

    def visit_Call(self, call: rx.Call) -> rx.Expr:
        new = self.generic_mutate_expr(call)
        if isinstance(new.op, rx.GlobalVar) and new.op.name_hint in self.fixes:
            new = self.fixes[new.op.name_hint](new)
        return new


def expand_tuple_arguments_inner(mod: IRModule) -> IRModule:
    replaced: Dict[str, rx.Function] = {}
    for gv, f in mod.functions_items():
        if isinstance(f, rx.Function):
            nf = _expand_params(f)
            if nf is not None:
                replaced[gv.name_hint] = nf
    if not replaced:
        return mod

    def fix(call: rx.Call) -> rx.Call:
        args: List[rx.Expr] = []

        def expand(a: rx.Expr) -> None:
            s = a.struct_info
            if isinstance(s, TupleStructInfo):
                for i, f in enumerate(s.fields):
                    expand(rx.TupleGetItem(a, i, struct_info=f))
            else:
                args.append(a)

        for a in call.args:
            expand(a)
        return rx.Call(call.op, tuple(args), call.attrs, call.sinfo_args, span=call.span)

    rw = _CallRewriter({name: fix for name in replaced})
    items = {}
    for gv, f in mod.functions_items():
        f = replaced.get(gv.name_hint, f)
        if isinstance(f, rx.Function):
            f = rw.visit_expr(f)
        items[gv] = f
    return renormalize(IRModule(items, mod.attrs, mod.global_infos))


class ExpandTupleArguments(Pass):
    """(PASS.FUSETIR.1)"""

    name = "ExpandTupleArguments"
    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        from .pass_infra import module_pass

        return Sequential([module_pass(expand_tuple_arguments_inner, "ExpandTupleArgumentsInner"),
                           CanonicalizeBindings(), DeadCodeElimination()], "ExpandTupleArguments")(mod)


# ---------------------------------------------------------------------------------------------------
# RemoveUnusedParameters (PASS.FUSETIR.2)
# ---------------------------------------------------------------------------------------------------


def remove_unused_parameters(mod: IRModule, release: Optional[str] = None) -> IRModule:
    """PASS.FUSETIR.2, a symbolic variable passed in the form of TVM ``release`` (PASS.RELEASE.1):
    ``R.Prim(value=n)`` (0.25) or ``R.Shape([n])`` (0.27)."""
    from ..analysis.struct_info_ops import definable_sym_vars
    from ..ops.releases import get_release

    as_shape = get_release(release).shape_symbol_params

    fixes = {}
    replaced: Dict[str, rx.Function] = {}
    for gv, f in mod.functions_items():
        if not isinstance(f, rx.Function) or not _is_private(f):
            continue
        used = set(free_vars(f.body))
        mask = [p in used for p in f.params]
        if all(mask):
            continue
        params = [p for p, m in zip(f.params, mask) if m]
        defined: Set[P.PrimVar] = set()
        for p in params:
            defined.update(definable_sym_vars(p.struct_info))
        # TVM 0.25 collects these in an unordered set; for the few variables at stake its iteration
        # order is the reverse of first occurrence (the order relax-ref fixes)
        free_tir = [v for v in free_symbolic_vars(f.body) if v not in defined][::-1]
        for v in free_tir:
            sinfo = ShapeStructInfo((v,)) if as_shape else PrimStructInfo(v.dtype, v)
            params.append(rx.Var(name_hint=f"param_{v.name}", struct_info=sinfo))
        replaced[gv.name_hint] = rx.Function(tuple(params), f.body, f.ret_struct_info, f.is_pure, attrs=f.attrs,
                                             span=f.span)

        def fix(call: rx.Call, mask=mask, old_params=f.params, free_tir=free_tir, name=gv.name_hint,
                as_shape=as_shape) -> rx.Call:
            if len(call.args) != len(mask):
                raise RelaxError(f"RemoveUnusedParameters: call of {name} provides {len(call.args)} arguments, "
                                 f"but the callee accepts {len(mask)} parameters", call.span)
            args = [a for a, m in zip(call.args, mask) if m]
            if free_tir:
                binding: Dict = {}
                for p, a in zip(old_params, call.args):
                    infer_symbolic_var_map(p.struct_info, a.struct_info, binding)
                for v in free_tir:
                    if v not in binding:
                        raise RelaxError(f"RemoveUnusedParameters: cannot infer symbolic variable {v.name} "
                                         f"from the call of {name}", call.span, symbol=v.name)
                    args.append(rx.ShapeExpr((binding[v],)) if as_shape else rx.PrimValue(binding[v]))
            return rx.Call(call.op, tuple(args), call.attrs, call.sinfo_args, span=call.span)

        fixes[gv.name_hint] = fix
    if not fixes:
        return mod
    rw = _CallRewriter(fixes)
    items = {}
    for gv, f in mod.functions_items():
        f = replaced.get(gv.name_hint, f)
        if isinstance(f, rx.Function):
            nf = rw.visit_expr(f)
            if nf is not f:
                nf = remove_all_unused(nf)
            f = nf
        items[gv] = f
    return renormalize(IRModule(items, mod.attrs, mod.global_infos))


class RemoveUnusedParameters(Pass):
    """(PASS.FUSETIR.2) ``release``: the TVM release whose form is written (PASS.RELEASE.1)."""

    name = "RemoveUnusedParameters"
    opt_level = 0

    def __init__(self, release: Optional[str] = None) -> None:
        from ..ops.releases import get_release

        self.release = get_release(release).name

    def transform(self, mod: IRModule) -> IRModule:
        return remove_unused_parameters(mod, self.release)


# ---------------------------------------------------------------------------------------------------
# The fusion (PASS.FUSETIR.3)
# ---------------------------------------------------------------------------------------------------


class _SymbolicMatcher:
    """TVM's ``SymbolicMatcher``: binds callee symbolic variables to caller expressions."""

    def __init__(self, analyzer) -> None:
        self.analyzer = analyzer
        self.var_remap: Dict[P.PrimVar, P.PrimExpr] = {}
        self.must_prove: List[Tuple[P.PrimExpr, P.PrimExpr]] = []

    def match(self, param: P.PrimExpr, arg: P.PrimExpr) -> None:
        self._visit(param, arg)
        from ..ir.functor import substitute_prim

        for a, b in self.must_prove:
            cond = P.eq(substitute_prim(a, self.var_remap), b)
            s = self.analyzer.simplify(cond)
            if isinstance(s, P.IntImm) and s.value == 0:
                raise RelaxError(f"FuseTIR: parameter expression {P.to_str(a)} cannot match the argument "
                                 f"{P.to_str(b)}")

    def match_all(self, params, args) -> None:
        if len(params) != len(args):
            raise RelaxError(f"FuseTIR: shape rank mismatch ({len(params)} vs {len(args)})")
        for p, a in zip(params, args):
            self.match(p, a)

    def _visit(self, node: P.PrimExpr, other: P.PrimExpr) -> None:
        if node is other:
            return
        if _dtype_code(node.dtype) != _dtype_code(other.dtype):
            raise RelaxError(f"FuseTIR: parameter expression {P.to_str(node)} with dtype {node.dtype} cannot "
                             f"match the argument {P.to_str(other)} with dtype {other.dtype}")
        if isinstance(node, P.PrimVar):
            if node in self.var_remap:
                self._visit(self.var_remap[node], other)
            else:
                self.var_remap[node] = other
            return
        if isinstance(node, P.IntImm):
            if not isinstance(other, P.IntImm) or other.value != node.value:
                raise RelaxError(f"FuseTIR: parameter expression {P.to_str(node)} expected an integer argument "
                                 f"with value {node.value}, but got {P.to_str(other)}")
            return
        if isinstance(node, P.FloatImm):
            if not isinstance(other, P.FloatImm) or other.value != node.value:
                raise RelaxError(f"FuseTIR: parameter expression {P.to_str(node)} expected the float "
                                 f"{node.value}, but got {P.to_str(other)}")
            return
        if isinstance(node, P.Cast):
            if not isinstance(other, P.Cast):
                raise RelaxError(f"FuseTIR: parameter expression {P.to_str(node)} expected a cast argument, "
                                 f"but got {P.to_str(other)}")
            self._visit(node.value, other.value)
            return
        if isinstance(node, P.BinaryOp) and type(other) is type(node):
            self._visit(node.a, other.a)
            self._visit(node.b, other.b)
            return
        if isinstance(node, P.Select) and isinstance(other, P.Select):
            self._visit(node.true_value, other.true_value)
            self._visit(node.false_value, other.false_value)
            return
        self.must_prove.append((node, other))


def _dtype_code(dt: str) -> str:
    for k in ("uint", "int", "float", "bfloat", "bool", "handle"):
        if dt.startswith(k):
            return k
    return dt


def _tensor_count(s: StructInfo) -> int:
    if isinstance(s, TensorStructInfo):
        return 1
    if isinstance(s, TupleStructInfo):
        return sum(_tensor_count(f) for f in s.fields)
    raise RelaxError(f"FuseTIR: tensors or tuples expected, got {s}")


def _inplace_output_indices(indices, num_inputs: int) -> List[int]:
    out, last = [], num_inputs
    for i in indices:
        i = int(i)
        if i >= 0:
            out.append(i)
        else:
            out.append(last)
            last += 1
    return out


def _kept_offset(buf: tir.Buffer, shape) -> Optional[P.PrimExpr]:
    """(PASS.FUSETIR.3) The element offset of an intermediate buffer made from ``buf`` with a new
    ``shape``, as TVM's ``WithShape`` keeps it: a default offset is 0 of the old shape's index type,
    spelled out when the new shape's index type differs."""
    if buf.elem_offset is not None:
        return buf.elem_offset
    old = buf.shape[0].dtype if buf.shape else "int32"
    new = shape[0].dtype if shape else "int32"
    return None if old == new else P.IntImm(0, old)


class _FusedTIRBuilder:
    def __init__(self, mod: IRModule, name: str) -> None:
        from ..arith import Analyzer

        self.mod = mod
        self.name = name
        self.expr2buffers: Dict[int, List[tir.Buffer]] = {}
        self._keep: list = []
        self.alloc_buffers: List[tir.Buffer] = []
        self.bodies: List[tir.Stmt] = []
        self.params: List[P.PrimVar] = []
        self.buffer_map: List[Tuple[P.PrimVar, tir.Buffer]] = []
        self.buffer_pairs: List[Tuple[tir.Buffer, tir.Buffer]] = []
        self.output_buffers: Set[int] = set()
        self.matcher = _SymbolicMatcher(Analyzer())
        self.inplace_indices: List[int] = []
        self.asserts: list = []

    def set_buffers(self, e, bufs: List[tir.Buffer]) -> None:
        self._keep.append(e)
        self.expr2buffers[id(e)] = bufs

    def buffers(self, e) -> Optional[List[tir.Buffer]]:
        return self.expr2buffers.get(id(e))

    def _prim_func(self, gv: rx.GlobalVar) -> tir.PrimFunc:
        f = self.mod[gv.name_hint] if gv.name_hint in self.mod else None
        if not isinstance(f, tir.PrimFunc):
            raise RelaxError(f"FuseTIR: {gv.name_hint} is not a PrimFunc of the module")
        return f

    def _param_scopes(self, func: rx.Function) -> Dict[rx.Var, tir.Buffer]:
        """Relax variable -> a callee buffer it is bound to (for the scope of parameter buffers)."""
        out: Dict[rx.Var, tir.Buffer] = {}
        for block in func.body.blocks:
            for b in block.bindings:
                v = b.value
                if not (isinstance(v, rx.Call) and isinstance(v.op, rx.Op)
                        and v.op.name in ("relax.call_tir", "relax.call_tir_inplace")):
                    continue
                pf = self._prim_func(v.args[0])
                for i, a in enumerate(v.args[1].fields):
                    if i < len(pf.params) and isinstance(a, rx.Var):
                        buf = pf.buffer_of(pf.params[i])
                        if buf is not None:
                            out.setdefault(a, buf)
        return out

    def build(self, func: rx.Function) -> Tuple[tir.PrimFunc, List[int]]:
        scopes = self._param_scopes(func)
        prim_params: List[object] = []
        for p in func.params:
            before = len(prim_params)
            self._collect_param(p, prim_params, scopes.get(p))
            self.set_buffers(p, [x for x in prim_params[before:] if isinstance(x, tir.Buffer)])
        prim_params.sort(key=lambda x: isinstance(x, P.PrimVar))  # stable: buffers, then scalars
        for x in prim_params:
            if isinstance(x, tir.Buffer):
                hv = P.PrimVar("p_" + x.name, "handle")
                self.params.append(hv)
                self.buffer_map.append((hv, x))
        # the body
        for block in func.body.blocks:
            for b in block.bindings:
                if isinstance(b, rx.MatchCast):
                    raise RelaxError("FuseTIR: MatchCast is unsupported in primitive functions", b.span,
                                     binding=b.var.name_hint)
                self.visit(b.value)
                bufs = self.buffers(b.value)
                if bufs is None:
                    raise RelaxError(f"FuseTIR: unsupported binding value in primitive function {self.name}",
                                     b.span, binding=b.var.name_hint)
                self.set_buffers(b.var, bufs)
        body_expr = func.body.body
        self.visit(body_expr)
        out_bufs = self.buffers(body_expr)
        if out_bufs is None:
            raise RelaxError(f"FuseTIR: cannot find the output buffers of {self.name}")
        input_index = {id(buf): i for i, (_, buf) in enumerate(self.buffer_map)}
        k = 0
        for buf in out_bufs:
            i = input_index.get(id(buf))
            if i is not None:
                if i in self.inplace_indices:
                    raise RelaxError(f"FuseTIR: in-place index {i} used twice")
                self.inplace_indices.append(i)
                continue
            hv = P.PrimVar(f"p_output{k}", "handle")
            k += 1
            self.params.append(hv)
            self.buffer_map.append((hv, buf))
            self.output_buffers.add(id(buf))
        for x in prim_params:
            if isinstance(x, P.PrimVar):
                self.params.append(x)
        return self._construct(), sorted(self.inplace_indices)

    def _collect_param(self, p: rx.Var, out: list, scope_buf: Optional[tir.Buffer]) -> None:
        s = p.struct_info
        if isinstance(s, TupleStructInfo):
            raise RelaxError(f"FuseTIR: tuple parameter {p.name_hint} should have been expanded")
        if isinstance(s, TensorStructInfo):
            vals = s.shape_values if isinstance(s.shape, rx.ShapeExpr) else None
            if vals is None:
                raise RelaxError(f"FuseTIR expects every tensor parameter to have a known shape ({p.name_hint})")
            if scope_buf is not None:
                out.append(tir.Buffer(p.name_hint, tuple(vals), s.dtype, scope=scope_buf.scope,
                                      axis_separators=scope_buf.axis_separators))
            else:
                out.append(tir.Buffer(p.name_hint, tuple(vals), s.dtype))
        elif isinstance(s, PrimStructInfo):
            if not isinstance(s.value, P.PrimVar):
                raise RelaxError(f"FuseTIR: prim parameter {p.name_hint} must carry a symbolic variable")
            out.append(s.value)
        elif isinstance(s, ShapeStructInfo):
            for v in s.values or ():
                if not isinstance(v, P.PrimVar):
                    raise RelaxError(f"FuseTIR: shape parameter {p.name_hint} must consist of symbolic variables")
                out.append(v)
        else:
            raise RelaxError(f"FuseTIR: parameters must be tensors, prim values or shapes ({p.name_hint})")

    # -- expressions --------------------------------------------------------------------------------
    def visit(self, e: rx.Expr) -> None:
        if isinstance(e, rx.Tuple):
            bufs: List[tir.Buffer] = []
            for f in e.fields:
                self.visit(f)
                fb = self.buffers(f)
                if fb is not None:
                    bufs.extend(fb)
            if bufs:
                self.set_buffers(e, bufs)
        elif isinstance(e, rx.TupleGetItem):
            self.visit(e.tuple_value)
            tb = self.buffers(e.tuple_value)
            if tb is not None:
                tsi = e.tuple_value.struct_info
                begin = sum(_tensor_count(f) for f in tsi.fields[:e.index])
                end = begin + _tensor_count(tsi.fields[e.index])
                self.set_buffers(e, tb[begin:end])
        elif isinstance(e, rx.Call):
            self.visit_call(e)
        elif isinstance(e, rx.Constant):
            raise RelaxError("FuseTIR: constants are not supported in primitive functions", e.span)

    def visit_call(self, call: rx.Call) -> None:
        if not (isinstance(call.op, rx.Op) and call.op.name in ("relax.call_tir", "relax.call_tir_inplace")):
            raise RelaxError(f"FuseTIR: only call_tir and call_tir_inplace are supported in primitive "
                             f"functions, got a call of {call.op!r}", call.span)
        self.visit(call.args[1])
        gv = call.args[0]
        func = renew_defs(self._prim_func(gv))
        asserts, root_realize = split_leading_asserts(func.body)
        if not (isinstance(root_realize, tir.BlockRealize) and root_realize.block.name == "root"):
            raise RelaxError(f"FuseTIR: only schedulable functions (whose body is the root block) can be "
                             f"fused; {gv.name_hint} is not", call.span)
        self.asserts.extend(asserts)
        root = root_realize.block
        self.alloc_buffers.extend(root.alloc_buffers)
        self.bodies.append(root.body)
        # inputs
        args = call.args[1].fields
        if len(func.params) < len(args):
            raise RelaxError(f"FuseTIR: {gv.name_hint} has fewer parameters than arguments", call.span)
        # arguments bind the leading parameters in order: a tensor its buffer, a prim value (TVM 0.27
        # passes scalars among the arguments) a scalar parameter
        k = 0
        for a in args:
            if isinstance(a, rx.PrimValue):
                if k >= len(func.params) or func.params[k].dtype == "handle":
                    raise RelaxError(f"FuseTIR: argument/parameter mismatch calling {gv.name_hint}", call.span)
                self.matcher.match(func.params[k], a.value)
                k += 1
                continue
            if not isinstance(a, rx.Var):
                raise RelaxError(f"FuseTIR: every argument of {gv.name_hint} must be a parameter or an "
                                 f"intermediate tensor of the primitive function", call.span)
            for target in self.buffers(a) or ():
                callee = func.buffer_of(func.params[k]) if k < len(func.params) else None
                if callee is None:
                    raise RelaxError(f"FuseTIR: argument/buffer mismatch calling {gv.name_hint}", call.span)
                self.matcher.match_all(callee.shape, target.shape)
                self.buffer_pairs.append((callee, target))
                k += 1
        # outputs
        si = call.sinfo_args[0]
        out_sinfos = list(si.fields) if isinstance(si, TupleStructInfo) else [si]
        shapes = []
        for s in out_sinfos:
            if not (isinstance(s, TensorStructInfo) and isinstance(s.shape, rx.ShapeExpr)):
                raise RelaxError("FuseTIR expects outputs with known shapes", call.span)
            shapes.append(s.shape.values)
        num_inputs = k
        if call.op.name == "relax.call_tir_inplace":
            idx = call.attrs.get("inplace_indices")
            idx = [idx] if isinstance(idx, int) else list(idx)
            out_idx = _inplace_output_indices(idx, num_inputs)
        else:
            out_idx = [num_inputs + i for i in range(len(shapes))]
        input_bufs = self.buffers(call.args[1])
        outs: List[tir.Buffer] = []
        for i, shape in enumerate(shapes):
            pi = out_idx[i]
            if pi >= len(func.params) or func.params[pi].dtype != "handle":
                raise RelaxError(f"FuseTIR: output {i} of {gv.name_hint} is not a buffer parameter", call.span)
            if pi < num_inputs:
                outs.append(input_bufs[pi])
                continue
            buf = func.buffer_of(func.params[pi])
            names = {b.name for b in self.alloc_buffers}
            name = buf.name + "_intermediate"
            k2 = 0
            while name in names:
                k2 += 1
                name = f"{name}_{k2}"
            nb = tir.Buffer(name, tuple(shape), buf.dtype, None, buf.strides, _kept_offset(buf, shape), buf.scope,
                            buf.axis_separators, buf.align, buf.offset_factor)
            self.alloc_buffers.append(nb)
            outs.append(nb)
            self.matcher.match_all(buf.shape, nb.shape)
            self.buffer_pairs.append((buf, nb))
        self.set_buffers(call, outs)
        if len(call.args) > 2:
            tv = call.args[2]
            if not isinstance(tv, rx.ShapeExpr):
                raise RelaxError("FuseTIR: tir_vars should be a shape expression", call.span)
            n = len(func.params)
            for i, v in enumerate(tv.values):
                self.matcher.match(func.params[n - len(tv.values) + i], v)

    # -- the PrimFunc ------------------------------------------------------------------------------
    def _construct(self) -> tir.PrimFunc:
        var_map = dict(self.matcher.var_remap)
        for src, tgt in self.buffer_pairs:
            if src.data is not None and tgt.data is not None:
                var_map[src.data] = tgt.data  # a buffer's data variable follows the buffer
        rw = TIRRewriter(var_map, {})
        for src, tgt in self.buffer_pairs:
            rw.buffer_map[id(src)] = tgt
            rw._keep.append(src)
        allocs = []
        for b in self.alloc_buffers:
            if id(b) not in self.output_buffers:
                allocs.append(rw.alloc(b))
        body = flatten_seq(self.bodies)
        body = BlockNameDeduplicator().stmt(body)
        body = rw.stmt(body)
        root = tir.Block(name="root", body=body, alloc_buffers=tuple(allocs))
        realize: tir.Stmt = tir.BlockRealize((), P.IntImm(1, "bool"), root)
        for cond, msg, span in reversed(self.asserts):  # the callees' guards, in order (PASS.FUSETIR.4)
            realize = tir.AssertStmt(rw.expr(cond), msg, realize, span=span)
        func = tir.PrimFunc(tuple(self.params), realize, tuple(self.buffer_map), "void",
                            attrs=Attrs({"tir.noalias": True}))
        return renew_defs(func)


def _fuse_primitive(mod: IRModule, name: str, func: rx.Function) -> Tuple[tir.PrimFunc, List[int]]:
    if not func.attrs.get("Primitive"):
        raise RelaxError(f"FuseTIR: {name} is not a primitive function")
    return _FusedTIRBuilder(mod, name).build(func)


def fuse_tir_inner(mod: IRModule) -> IRModule:
    """(PASS.FUSETIR.3) Fuse every primitive function and rewrite its calls."""
    prims = [(gv, f) for gv, f in mod.functions_items() if isinstance(f, rx.Function) and f.attrs.get("Primitive")]
    if not prims:
        return mod
    fused: Dict[str, Tuple[tir.PrimFunc, List[int], rx.Function]] = {}
    for gv, f in prims:
        pf, inplace = _fuse_primitive(mod, gv.name_hint, f)
        fused[gv.name_hint] = (pf, inplace, f)

    new_gvars: Dict[str, rx.GlobalVar] = {name: rx.GlobalVar(name) for name in fused}

    def fix(call: rx.Call) -> rx.Expr:
        name = call.op.name_hint
        pf, inplace, rfunc = fused[name]
        tensors: List[rx.Expr] = []
        tir_vars: List[P.PrimExpr] = []
        for i, a in enumerate(call.args):
            s = a.struct_info
            if isinstance(s, TupleStructInfo) or isinstance(rfunc.params[i].struct_info, TupleStructInfo):
                raise RelaxError(f"FuseTIR: tuple argument {i} of the call of {name} should have been expanded",
                                 call.span)
            if isinstance(s, ShapeStructInfo):
                if s.values is None or not all(isinstance(v, P.PrimVar) for v in s.values):
                    raise RelaxError("FuseTIR: shape arguments must consist of symbolic variables", call.span)
                tir_vars.extend(s.values)
            elif isinstance(s, PrimStructInfo):
                if not isinstance(s.value, P.PrimVar):
                    raise RelaxError("FuseTIR: prim arguments must carry a symbolic variable", call.span)
                tir_vars.append(s.value)
            else:
                tensors.append(a)
        args: Tuple[rx.Expr, ...] = (new_gvars[name], rx.Tuple(tuple(tensors)))
        if tir_vars:
            args += (rx.ShapeExpr(tuple(tir_vars)),)
        if inplace:
            return rx.Call(rx.Op("relax.call_tir_inplace"), args, Attrs({"inplace_indices": tuple(inplace)}),
                           (call.struct_info,), span=call.span)
        return rx.Call(rx.Op("relax.call_tir"), args, Attrs(), (call.struct_info,), span=call.span)

    rw = _CallRewriter({name: fix for name in fused})
    items = {}
    for gv, f in mod.functions_items():
        if gv.name_hint in fused:
            items[new_gvars[gv.name_hint]] = fused[gv.name_hint][0]
        elif isinstance(f, rx.Function):
            items[gv] = rw.visit_expr(f)
        else:
            items[gv] = f
    return renormalize(IRModule(items, mod.attrs, mod.global_infos))


class FuseTIR(Pass):
    """ExpandTupleArguments, RemoveUnusedParameters, the fusion, DeadCodeElimination
    (PASS.FUSETIR.*); ``release`` is RemoveUnusedParameters' (PASS.RELEASE.1)."""

    name = "FuseTIR"
    opt_level = 0

    def __init__(self, release: Optional[str] = None) -> None:
        from ..ops.releases import get_release

        self.release = get_release(release).name

    def transform(self, mod: IRModule) -> IRModule:
        from .pass_infra import module_pass

        return Sequential([ExpandTupleArguments(), RemoveUnusedParameters(self.release),
                           module_pass(fuse_tir_inner, "FuseTIRInner"), DeadCodeElimination()], "FuseTIR")(mod)


__all__ = ["FuseTIR", "ExpandTupleArguments", "RemoveUnusedParameters", "fuse_tir_inner",
           "expand_tuple_arguments_inner", "remove_unused_parameters"]
