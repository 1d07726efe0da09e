"""Faults of the lowering passes: memory planning, destination passing, reshape detection.

The memory-planning faults patch the planner's own analysis while it runs
(:mod:`relax_ref.transform.static_plan_block_memory`), each one a liveness rule TVM got wrong:

* ``reuse_while_live`` -- a storage is handed out again while its tensor still has one use left
  (an off-by-one in the reference count);
* ``reshape_not_alias`` -- ``R.reshape`` is not seen as a view of its input, so the input's storage
  is reused while the reshaped view is still live (``[Fix][Relax] Track lowered reshape storage
  aliases``);
* ``match_cast_tokens_dropped`` -- uses through a ``match_cast`` variable are not counted (TVM 0.25's
  behaviour; ``Check for trivial re-bindings in MatchCast nodes`` fixed its twin in the VM);
* ``storage_across_branches`` -- a storage allocated inside an ``If`` branch is handed to an
  allocation after the ``If`` or in the other branch, where it is not defined (TVM 0.25's behaviour).

Also: ``CallTIRRewrite`` writing a kernel's output into one of its inputs of the same struct info
(an in-place decision without checking the input's later uses), and ``RewriteDataflowReshape``
taking a transpose for a reshape (``Minor fix to RewriteDataflowReshape condition``).
"""

from __future__ import annotations

from typing import Optional

from ...analysis.struct_info_ops import struct_info_alpha_equal
from ...ir import expr as rx
from ...ir.functor import ExprMutator
from ...ir.module import IRModule
from ...transform import Pass
from .base import mutant, name_matches, op_of, rewrite_bindings, rewrite_functions


def _planner():
    from ...transform import static_plan_block_memory as spbm

    return spbm


def memory_reuse_while_live(inner) -> Pass:
    """A storage whose tensor has exactly one use left is treated as free and handed to the next
    allocation of the same size."""
    spbm = _planner()

    def alloc(orig):
        def f(self, proto):
            tok = orig(self, proto)
            self.__dict__.setdefault("_all_tokens", []).append(tok)
            return tok
        return f

    def request_reuse(orig):
        def f(self, proto):
            tok = orig(self, proto)
            if tok is not None or proto.ref_counter == 0:
                return tok
            size = proto.const_bytes()
            shared = self.__dict__.setdefault("_shared_tokens", set())
            for t in self.__dict__.get("_all_tokens", []):
                if t.ref_counter == 1 and t.scope == proto.scope and t.dtype == proto.dtype and size > 0 \
                        and t.const_bytes() == size and id(t) not in shared:
                    t.ref_counter += proto.ref_counter
                    shared.add(id(t))
                    return t
            return None
        return f

    return mutant(inner, "reuse_while_live", patches=[(spbm._Pool, "alloc", alloc),
                                                      (spbm._Pool, "request_reuse", request_reuse)])


def _not_alias_patches(spbm):
    def reshape_not_alias(orig):
        def f(self, call):
            if op_of(call) == "relax.reshape":
                self.get_tokens(call.args[0])
                self.set_tokens(call, None)
                return None
            return orig(self, call)
        return f

    return [(spbm._Init, "call", reshape_not_alias), (spbm._Planner, "call", reshape_not_alias)]


def memory_reshape_not_alias(inner) -> Pass:
    """``R.reshape`` is not tracked as a view of its input's storage: the input's storage is
    released after its last direct use although the reshaped view is still read later."""
    return mutant(inner, "reshape_not_alias", patches=_not_alias_patches(_planner()))


def memory_match_cast_tokens_dropped(inner) -> Pass:
    """A ``match_cast`` variable does not carry its value's storage token, so uses through it are not
    counted and the storage may be reused while the cast variable is still live."""
    spbm = _planner()

    def init_block(orig):
        def f(self, b):
            self.block_stack.append(b)
            for x in b.bindings:
                self.visit(x.value)
                self.set_tokens(x.var, None if isinstance(x, rx.MatchCast) else self.token_map.get(id(x.value)))
            self.block_stack.pop()
        return f

    def plan_binding(orig):
        def f(self, b):
            if isinstance(b, rx.MatchCast):
                self.visit(b.value)
                self.set_tokens(b.var, None)
                return None
            return orig(self, b)
        return f

    return mutant(inner, "match_cast_tokens_dropped", patches=[(spbm._Init, "block", init_block),
                                                               (spbm._Planner, "binding", plan_binding)])


def memory_storage_across_branches(inner) -> Pass:
    """Storage allocated inside an ``If`` branch stays in the pool when the branch ends and is
    handed to a later allocation outside it, where its ``alloc_storage`` variable is undefined."""
    spbm = _planner()
    return mutant(inner, "storage_across_branches",
                  patches=[(spbm._Pool, "withdraw", lambda orig: lambda self, home: None)])


# ---------------------------------------------------------------------------------------------------
# CallTIRRewrite and RewriteDataflowReshape
# ---------------------------------------------------------------------------------------------------


class _OutputIntoInput(ExprMutator):
    def __init__(self, params) -> None:
        super().__init__()
        self.params = {id(p) for p in params}
        self.done = False

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        if self.done:
            return super().visit_block(b)
        bindings = list(b.bindings)
        for i, x in enumerate(bindings):
            if op_of(x.value) != "relax.builtin.alloc_tensor":
                continue
            for y in bindings[i + 1:]:
                c = y.value
                if isinstance(c, rx.Call) and isinstance(c.op, rx.GlobalVar) and c.args and c.args[-1] is x.var:
                    for a in c.args[:-1]:
                        if isinstance(a, rx.Var) and id(a) not in self.params \
                                and struct_info_alpha_equal(a.struct_info, x.var.struct_info):
                            self.var_remap[x.var] = a
                            self.done = True
                            rest = bindings[:i] + bindings[i + 1:]
                            return type(b)(tuple(self.visit_binding(z) for z in rest), span=b.span)
                    break
        return super().visit_block(b)


def call_tir_rewrite_output_into_input(inner) -> Pass:
    """A kernel's output is written into one of its (non-parameter) inputs of the same shape and
    dtype instead of a fresh allocation, although the input is read again later."""
    def each(name, f):
        m = _OutputIntoInput(f.params)
        nf = m.visit_expr(f)
        return nf if m.done else None

    return mutant(inner, "output_into_input", post=lambda before, after: rewrite_functions(after, each))


def rewrite_reshape_accepts_transpose(inner) -> Pass:
    """A transpose kernel (``permute_dims``) in a dataflow block is taken for a reshape and
    replaced by ``R.reshape`` of its input to the output shape."""
    def post(before: IRModule, after: IRModule) -> Optional[IRModule]:
        from ..rules import call

        def fn(b, rw):
            v = b.value
            if isinstance(b, rx.VarBinding) and isinstance(b.var, rx.DataflowVar) and op_of(v) == "relax.call_tir" \
                    and isinstance(v.args[0], rx.GlobalVar) and name_matches(v.args[0].name_hint, ("transpose",)) \
                    and isinstance(v.args[1], rx.Tuple) and len(v.args[1].fields) == 1 and v.sinfo_args:
                shape = v.sinfo_args[0].shape
                if isinstance(shape, rx.ShapeExpr):
                    return rx.VarBinding(b.var, call("relax.reshape", v.args[1].fields[0], shape), span=b.span)
            return b

        return rewrite_bindings(after, fn)

    return mutant(inner, "accepts_transpose", post=post)


__all__ = ["memory_reuse_while_live", "memory_reshape_not_alias", "memory_match_cast_tokens_dropped",
           "memory_storage_across_branches", "call_tir_rewrite_output_into_input", "rewrite_reshape_accepts_transpose"]
