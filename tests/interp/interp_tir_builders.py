"""Small builders for TensorIR test programs (PrimFuncs built programmatically)."""

from __future__ import annotations

from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir


def i64(v):
    return P.IntImm(v, "int64")


def buf(name, shape, dtype="float32"):
    return tir.Buffer(name, tuple(i64(s) if isinstance(s, int) else s for s in shape), dtype)


def prim_func(buffers, body, scalars=(), name="f"):
    """A PrimFunc whose parameters are ``buffers`` (then ``scalars``, PrimVars) in order."""
    params = []
    bmap = []
    for b in buffers:
        h = P.PrimVar(b.name + "_handle", "handle")
        params.append(h)
        bmap.append((h, b))
    params.extend(scalars)
    return tir.PrimFunc(tuple(params), body, tuple(bmap), attrs={"global_symbol": name})


def grid(extents, make_body, names=None, dtype="int64"):
    """Nested serial loops; ``make_body(*loop_vars)`` builds the innermost statement."""
    vs = [P.PrimVar((names or "ijklmn")[k], dtype) for k in range(len(extents))]
    body = make_body(*vs)
    for v, e in reversed(list(zip(vs, extents))):
        body = tir.For(v, P.IntImm(0, dtype), e if isinstance(e, P.PrimExpr) else P.IntImm(e, dtype),
                       "serial", body)
    return body


def block(name, kinds, loop_vars, body_fn, init_fn=None, doms=None, predicate=None, dtype="int64"):
    """A block realize with iteration variables ``v<loopvar>`` of ``kinds`` ("S"/"R") bound to
    ``loop_vars``; ``body_fn(*iter_vars)`` / ``init_fn(*iter_vars)`` build the body / init."""
    ivs = []
    for k, (kind, lv) in enumerate(zip(kinds, loop_vars)):
        v = P.PrimVar("v_" + lv.name, dtype)
        dom = doms[k] if doms is not None else i64(1 << 30)
        ivs.append(tir.IterVar(v, tir.Range(P.IntImm(0, dtype), dom),
                               "spatial" if kind == "S" else "reduce"))
    vs = [iv.var for iv in ivs]
    blk = tir.Block(name, tuple(ivs), (), (), body_fn(*vs), init_fn(*vs) if init_fn else None)
    return tir.BlockRealize(tuple(loop_vars), predicate, blk)


def matmul_func(m, n, k, dtype="float32", with_init=True):
    A, B, C = buf("A", (m, k), dtype), buf("B", (k, n), dtype), buf("C", (m, n), dtype)
    zero = P.FloatImm(0.0, dtype) if dtype.startswith("float") else P.IntImm(0, dtype)

    def body(i, j, kk):
        return block(
            "matmul", "SSR", [i, j, kk],
            lambda vi, vj, vk: tir.BufferStore(
                C, tir.BufferLoad(C, (vi, vj)) + tir.BufferLoad(A, (vi, vk)) * tir.BufferLoad(B, (vk, vj)),
                (vi, vj)),
            (lambda vi, vj, vk: tir.BufferStore(C, zero, (vi, vj))) if with_init else None,
            doms=[i64(m), i64(n), i64(k)])
    return prim_func([A, B, C], grid([m, n, k], body), name="matmul")
