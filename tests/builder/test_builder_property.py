"""Property: random programs built with the builder API are well formed, round-trip through the
printer and parser in both dialects (TEXT.RT.1), and evaluate like the same program written in numpy
at several sizes of their symbolic dimensions."""

import numpy as np
from hypothesis import given, strategies as st

import relax_ref
from relax_ref.static.well_formed import check_well_formed
from relax_ref.builder import BlockBuilder, Tensor, op, var

UNARY = {
    "negative": (op.negative, np.negative),
    "tanh": (op.tanh, np.tanh),
    "abs": (op.abs, np.abs),
    "sigmoid": (op.sigmoid, lambda a: 1.0 / (1.0 + np.exp(-a))),
}
BINARY = {
    "add": (op.add, np.add),
    "multiply": (op.multiply, np.multiply),
    "subtract": (op.subtract, np.subtract),
    "maximum": (op.maximum, np.maximum),
}


def _broadcastable(a, b):
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and 1 not in (x, y):
            return False
    return True


def _bcast(a, b):
    out = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


@st.composite
def programs(draw):
    """A list of steps; each value is (dims as symbols, numpy function of the inputs)."""
    steps = []
    dims = [("n", "m"), ("m",)]  # the two parameters
    for _ in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(["unary", "binary", "sum", "permute"]))
        i = draw(st.integers(0, len(dims) - 1))
        if kind == "unary":
            steps.append(("unary", draw(st.sampled_from(sorted(UNARY))), i))
            dims.append(dims[i])
        elif kind == "binary":
            partners = [j for j in range(len(dims)) if _broadcastable(dims[i], dims[j])]
            j = draw(st.sampled_from(partners))
            steps.append(("binary", draw(st.sampled_from(sorted(BINARY))), i, j))
            dims.append(_bcast(dims[i], dims[j]))
        elif kind == "sum" and len(dims[i]) == 2:
            keep = draw(st.booleans())
            steps.append(("sum", keep, i))
            dims.append((dims[i][0], 1) if keep else (dims[i][0],))
        elif kind == "permute" and len(dims[i]) == 2:
            steps.append(("permute", i))
            dims.append((dims[i][1], dims[i][0]))
    return steps, draw(st.booleans())


def build(steps, dataflow):
    bb = BlockBuilder()
    n, m = bb.sym_var("n"), bb.sym_var("m")
    x = var("x", Tensor((n, m), "float32"))
    y = var("y", Tensor((m,), "float32"))
    with bb.function("main", [x, y]):
        ctx = bb.dataflow() if dataflow else None
        if ctx is not None:
            ctx.__enter__()
        vals = [x, y]
        for s in steps:
            if s[0] == "unary":
                e = UNARY[s[1]][0](vals[s[2]])
            elif s[0] == "binary":
                e = BINARY[s[1]][0](vals[s[2]], vals[s[3]])
            elif s[0] == "sum":
                e = op.sum(vals[s[2]], axis=[1], keepdims=s[1])
            else:
                e = op.permute_dims(vals[s[1]])
            vals.append(bb.emit(e))
        out = bb.emit_output(vals[-1]) if dataflow else vals[-1]
        if ctx is not None:
            ctx.__exit__(None, None, None)
        bb.emit_func_output(out)
    return bb.get()


def numpy_eval(steps, xv, yv):
    vals = [xv, yv]
    for s in steps:
        if s[0] == "unary":
            vals.append(UNARY[s[1]][1](vals[s[2]]).astype(np.float32))
        elif s[0] == "binary":
            vals.append(BINARY[s[1]][1](vals[s[2]], vals[s[3]]).astype(np.float32))
        elif s[0] == "sum":
            vals.append(vals[s[2]].sum(axis=1, keepdims=s[1]).astype(np.float32))
        else:
            vals.append(vals[s[1]].T.copy())
    return vals[-1]


@given(programs())
def test_built_programs_roundtrip_and_evaluate(prog):
    steps, dataflow = prog
    mod = build(steps, dataflow)
    check_well_formed(mod)
    for dialect in ("classic", "tvm"):
        relax_ref.assert_structural_equal(mod, relax_ref.parse(mod.script(dialect=dialect)))
    rng = np.random.default_rng(len(steps))
    for n, m in ((1, 1), (2, 3), (4, 2)):
        xv = rng.standard_normal((n, m)).astype("float32")
        yv = rng.standard_normal((m,)).astype("float32")
        np.testing.assert_allclose(relax_ref.evaluate(mod, "main", xv, yv), numpy_eval(steps, xv, yv),
                                   rtol=1e-5, atol=1e-5)
