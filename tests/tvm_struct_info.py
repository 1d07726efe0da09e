"""TVM's struct info and TIR expressions as relax-ref's, for the tests that compare the two (the
test directories put this directory on the import path through tests/conftest.py)."""

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
        tirx = self.tvm.tirx
        if isinstance(e, tirx.Var):
            return self.prim_var(e)
        if isinstance(e, tirx.IntImm):
            return P.IntImm(int(e.value), str(e.dtype))
        if isinstance(e, tirx.FloatImm):
            return P.FloatImm(float(e.value), str(e.dtype))
        node = self.nodes.get(type(e).__name__)
        if node is None:
            raise AssertionError(f"unhandled TVM expression {e!r} of type {type(e)}")
        return node(self.prim(e.a), self.prim(e.b))

    def sinfo(self, s):
        relax = self.tvm.relax
        if isinstance(s, relax.ObjectStructInfo):
            return ObjectStructInfo()
        if isinstance(s, relax.PrimStructInfo):
            return PrimStructInfo(str(s.dtype), self.prim(s.value) if s.value is not None else None)
        if isinstance(s, relax.ShapeStructInfo):
            if s.values is not None:
                return ShapeStructInfo(tuple(self.prim(v) for v in s.values))
            return ShapeStructInfo(ndim=s.ndim)
        if isinstance(s, relax.TensorStructInfo):
            return self._tensor(s)
        if isinstance(s, relax.TupleStructInfo):
            return TupleStructInfo(tuple(self.sinfo(f) for f in s.fields))
        if isinstance(s, relax.FuncStructInfo):
            if s.params is None:
                return FuncStructInfo.opaque(self.sinfo(s.ret), bool(s.purity))
            return FuncStructInfo(tuple(self.sinfo(p) for p in s.params), self.sinfo(s.ret), bool(s.purity))
        raise AssertionError(f"unhandled TVM struct info {s}")

    def _tensor(self, s):
        dtype = str(s.dtype) or "void"
        if s.shape is None:
            return TensorStructInfo(None, dtype, s.ndim)
        if isinstance(s.shape, self.tvm.relax.ShapeExpr):
            return TensorStructInfo(rx.ShapeExpr(tuple(self.prim(v) for v in s.shape.values)), dtype)
        if self.shape_var is None:
            raise AssertionError(f"a tensor shape given by a variable: {s}")
        return TensorStructInfo(self.shape_var(s.shape), dtype)
