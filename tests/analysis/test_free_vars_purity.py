"""Variable, symbolic-variable, global-reference and purity analyses (VAR.FREE.*, SI.SYM.*,
EXPR.PURITY.*), plus property checks of the struct-info lattice."""

from hypothesis import given
from hypothesis import strategies as st

from relax_ref.analysis import (
    all_global_vars, bound_vars, called_global_vars, defined_symbolic_vars, free_symbolic_vars, is_base_of,
    struct_info_base_check, struct_info_lca,
)
from relax_ref.analysis.free_vars import free_vars
from relax_ref.static.normalize import normalize_module
from relax_ref.analysis.tir_purity import prim_func_is_pure
from relax_ref.analysis.signatures import prim_func_struct_info
from relax_ref.analysis.struct_info_ops import BaseCheckResult
from relax_ref.static import contains_impure_call, find_impure_call
from relax_ref.ir import (
    BindingBlock, Call, Function, GlobalVar, IRModule, MatchCast, Op, SeqExpr, ShapeExpr, StringImm, Tuple, Var,
    VarBinding,
)
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.struct_info import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo, TupleStructInfo,
)

ADD = Op("relax.add")


def T(*dims, dtype="float32"):
    return TensorStructInfo(ShapeExpr(tuple(dims)), dtype)


def test_free_and_bound_vars():
    x = Var("x", struct_info=T(3))
    outer = Var("outer", struct_info=T(3))
    s = Var("s", struct_info=ShapeStructInfo(ndim=1))
    y = Var("y")
    w = Var("w", struct_info=TensorStructInfo(s, "float32"))
    f = Function((x,), SeqExpr((BindingBlock((VarBinding(y, Call(ADD, (x, outer))), VarBinding(w, y))),), w))
    assert free_vars(f) == [outer, s]
    assert bound_vars(f) == [x, y, w]


def test_global_references():
    g, h = GlobalVar("g"), GlobalVar("h")
    x = Var("x", struct_info=T(3))
    a, b = Var("a"), Var("b")
    body = SeqExpr((BindingBlock((VarBinding(a, Call(g, (x,))),
                                  VarBinding(b, Call(Op("relax.call_tir"), (h, Tuple((x,))))))),), b)
    f = Function((x,), body)
    assert all_global_vars(f) == [g, h]
    assert called_global_vars(f) == [g]


def test_symbolic_vars():
    n, m, k = P.PrimVar("n"), P.PrimVar("m"), P.PrimVar("k")
    x = Var("x", struct_info=T(n * 2, n))
    y = Var("y")
    z = Var("z", struct_info=T(k))
    f = Function((x,), SeqExpr((BindingBlock((MatchCast(y, x, T(m, n)), VarBinding(z, Call(ADD, (y, y))))),), z))
    assert defined_symbolic_vars(f) == [n, m]
    assert free_symbolic_vars(f) == [k]


def test_purity_helpers():
    x = Var("x", struct_info=T(3))
    u = Var("u")
    pr = Call(Op("relax.print"), (StringImm(""), x))
    f = Function((x,), SeqExpr((BindingBlock((VarBinding(u, pr),)),), x), None, False,
                 attrs={"global_symbol": "main"})
    mod = normalize_module(IRModule({GlobalVar("main"): f}))
    found = find_impure_call(mod["main"])
    assert found is not None and found.op.name == "relax.print"
    inner = Function((), SeqExpr((BindingBlock((VarBinding(Var("v"), pr),)),), x), None, False)
    w = Var("w")
    g = Function((x,), SeqExpr((BindingBlock((VarBinding(w, inner),)),), x))
    assert not contains_impure_call(g)  # nested function bodies are not inspected


def _kernel(write_param: bool):
    pa = P.PrimVar("a", "handle")
    A = tir.Buffer("A", (4,), "float32")
    i = P.PrimVar("i", "int32")
    tmp = tir.Buffer("tmp", (4,), "float32", scope="local")
    target = A if write_param else tmp
    body = tir.SeqStmt((tir.AllocBuffer(tmp), tir.For(i, P.IntImm(0, "int32"), P.IntImm(4, "int32"), "serial",
                                                      tir.BufferStore(target, tir.BufferLoad(A, (i,)), (i,)))))
    return tir.PrimFunc((pa,), body, ((pa, A),))


def test_prim_func_purity_and_signature():
    assert not prim_func_is_pure(_kernel(True))
    assert prim_func_is_pure(_kernel(False))
    si = prim_func_struct_info(_kernel(False))
    assert si == FuncStructInfo((T(4),), TupleStructInfo(()), True)


# ---------------------------------------------------------------------------------------------------
# Lattice properties (SI.BASE.*, SI.LCA.*)
# ---------------------------------------------------------------------------------------------------

N = P.PrimVar("n")
_dims = st.sampled_from([P.IntImm(1, "int64"), P.IntImm(3, "int64"), N])
_dtypes = st.sampled_from(["float32", "int32", "void"])


def _tensor():
    full = st.builds(lambda ds, dt: TensorStructInfo(ShapeExpr(tuple(ds)), dt), st.lists(_dims, max_size=2), _dtypes)
    partial = st.builds(lambda nd, dt: TensorStructInfo(None, dt, nd), st.integers(-1, 2), _dtypes)
    return st.one_of(full, partial)


_leaf = st.one_of(
    st.just(ObjectStructInfo()),
    _tensor(),
    st.builds(lambda vs: ShapeStructInfo(tuple(vs)), st.lists(_dims, max_size=2)),
    st.builds(lambda nd: ShapeStructInfo(ndim=nd), st.integers(-1, 2)),
    st.sampled_from([PrimStructInfo("int64"), PrimStructInfo("int64", N), PrimStructInfo("float32")]),
)
sinfos = st.recursive(_leaf, lambda inner: st.one_of(
    st.builds(lambda fs: TupleStructInfo(tuple(fs)), st.lists(inner, max_size=2)),
    st.builds(lambda ps, r, pure: FuncStructInfo(tuple(ps), r, pure), st.lists(inner, max_size=2), inner,
              st.booleans()),
), max_leaves=4)


@given(sinfos, sinfos)
def test_lattice_laws(a, b):
    assert struct_info_base_check(a, a) == BaseCheckResult.PASS
    assert is_base_of(ObjectStructInfo(), a)
    lca = struct_info_lca(a, b)
    assert is_base_of(lca, a) and is_base_of(lca, b)
    if is_base_of(a, b):
        assert struct_info_base_check(a, b) == BaseCheckResult.PASS
