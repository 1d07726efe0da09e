"""TVM's struct info and TIR expressions as relax-ref's, for the tests that compare the two (the
test directories put this directory on the import path through tests/conftest.py). TVM's objects are
read through :mod:`tvm_compat`, so TVM 0.25's struct info and TVM 0.27's types convert alike."""

from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir.struct_info import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo, TupleStructInfo,
)

#: relax-ref's node of each TVM binary TIR node (by TVM class name)
NODES = {"Add": P.Add, "Sub": P.Sub, "Mul": P.Mul, "FloorDiv": P.FloorDiv, "FloorMod": P.FloorMod, "Min": P.Min,
         "Max": P.Max}


class FromTvm:
    """Converts TVM objects to relax-ref's. ``prim_var(v)`` gives relax-ref's symbolic variable for a
    TVM ``tirx.Var``, ``shape_var(v)`` its Relax variable for a TVM shape variable (a tensor's shape
    given as a variable); ``nodes`` maps TVM binary node names to relax-ref constructors."""

    def __init__(self, tvm, prim_var, shape_var=None, nodes=None):
        self.tvm = tvm
        self.prim_var = prim_var
        self.shape_var = shape_var
        self.nodes = NODES if nodes is None else nodes

    def prim(self, e):
        import tvm_compat as tc

        tirx = self.tvm.tirx
        if isinstance(e, tirx.Var):
            return self.prim_var(e)
        if isinstance(e, tirx.IntImm):
            return P.IntImm(int(e.value), tc.dtype(e))
        if isinstance(e, tirx.FloatImm):
            return P.FloatImm(float(e.value), tc.dtype(e))
        node = self.nodes.get(type(e).__name__)
        if node is None:
            raise AssertionError(f"unhandled TVM expression {e!r} of type {type(e)}")
        return node(self.prim(e.a), self.prim(e.b))

    def sinfo(self, s):
        import tvm_compat as tc

        if isinstance(s, tc.ObjectSI):
            return ObjectStructInfo()
        if isinstance(s, tc.PrimSI):
            value = tc.prim_value(s)
            return PrimStructInfo(str(s.dtype), self.prim(value) if value is not None else None)
        if isinstance(s, tc.ShapeSI):
            if s.values is not None:
                return ShapeStructInfo(tuple(self.prim(v) for v in s.values))
            return ShapeStructInfo(ndim=s.ndim)
        if isinstance(s, tc.TensorSI):
            return self._tensor(s)
        if isinstance(s, tc.TupleSI):
            return TupleStructInfo(tuple(self.sinfo(f) for f in s.fields))
        if isinstance(s, tc.FuncSI):
            if s.params is None:
                return FuncStructInfo.opaque(self.sinfo(s.ret), bool(s.purity))
            return FuncStructInfo(tuple(self.sinfo(p) for p in s.params), self.sinfo(s.ret), bool(s.purity))
        raise AssertionError(f"unhandled TVM struct info {s}")

    def _tensor(self, s):
        dtype = "void" if s.dtype is None or str(s.dtype) in ("", "None") else str(s.dtype)
        if s.shape is None:
            return TensorStructInfo(None, dtype, s.ndim)
        if isinstance(s.shape, self.tvm.relax.ShapeExpr):
            return TensorStructInfo(rx.ShapeExpr(tuple(self.prim(v) for v in s.shape.values)), dtype)
        if self.shape_var is None:
            raise AssertionError(f"a tensor shape given by a variable: {s}")
        return TensorStructInfo(self.shape_var(s.shape), dtype)


def as_tvm_states(si, tc):
    """relax-ref's struct info as the installed TVM can state it (``tc``: :mod:`tvm_compat`): TVM 0.27's
    scalar types carry no value, so ``R.Prim(value=n)`` compares as ``R.Prim(dtype)`` there."""
    if not tc.TYPES:
        return si
    if isinstance(si, PrimStructInfo):
        return PrimStructInfo(si.dtype)
    if isinstance(si, TupleStructInfo):
        return TupleStructInfo(tuple(as_tvm_states(f, tc) for f in si.fields))
    if isinstance(si, FuncStructInfo) and si.params is not None:
        return FuncStructInfo(tuple(as_tvm_states(p, tc) for p in si.params), as_tvm_states(si.ret, tc), si.purity)
    if isinstance(si, FuncStructInfo):
        return FuncStructInfo.opaque(as_tvm_states(si.ret, tc), si.purity)
    return si
