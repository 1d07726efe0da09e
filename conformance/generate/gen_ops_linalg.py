"""Linear algebra (spec/ops/linalg.md and one page per operator): ``matmul``, ``einsum``, ``outer``.

``matmul``: static and symbolic 2-d products (two sizes), batch broadcasting, 1-d promotion on either
side and both, ``out_dtype``, wrapping int8 accumulation, a zero-length reduction, and the rejections
of OP.matmul.C2-C4. ``einsum``: matrix product, batch, ellipsis, implicit output, trace/diagonal,
label broadcasting, three operands, and malformed equations; float16 ``matmul`` and ``einsum``
exactly (OP.LINALG.SEM.5, a plain-Python loop as oracle). ``outer``: static/symbolic and rank
errors.

Oracles: NumPy formulas (float results via float64, compared with the default tolerance; integer
results exact); rejections are the cited constraints.
"""


import itertools

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, via_float64

from case_helpers import f32, module, rng_for, tensor

CATEGORY = "op_linalg"


def matmul_cases():
    out = []
    ids = ["OP.matmul.C1", "OP.LINALG.SEM.1"]
    tags = ["op:matmul", "linalg"]
    rng = rng_for("matmul")
    a, b = f32(rng, 2, 3), f32(rng, 3, 4)
    out.append(Case("matmul_static", module([("a", tensor((2, 3), "float32")), ("b", tensor((3, 4), "float32"))],
                                            "R.matmul(a, b)", tensor((2, 4), "float32")),
                    runs=[([a, b], via_float64(np.matmul, a, b))], spec=ids, tags=tags + ["static"]))
    runs = []
    for n, k, m in ((2, 3, 4), (5, 1, 2)):
        x, y = f32(rng, n, k), f32(rng, k, m)
        runs.append(([x, y], via_float64(np.matmul, x, y)))
    out.append(Case("matmul_symbolic", module([("a", tensor(("n", "k"), "float32")), ("b", tensor(("k", "m"), "float32"))],
                                              "R.matmul(a, b)", tensor(("n", "m"), "float32")),
                    runs=runs, spec=ids, tags=tags + ["symbolic"], description="(n, k) @ (k, m); run at two sizes"))
    x, y = f32(rng, 2, 1, 3, 4), f32(rng, 5, 4, 2)
    out.append(Case("matmul_batch_broadcast",
                    module([("a", tensor((2, 1, 3, 4), "float32")), ("b", tensor((5, 4, 2), "float32"))],
                           "R.matmul(a, b)", tensor((2, 5, 3, 2), "float32")),
                    runs=[([x, y], via_float64(np.matmul, x, y))], spec=ids + ["NORM.OP.BCAST.1"],
                    tags=tags + ["broadcast"]))
    v, w = f32(rng, 4), f32(rng, 3, 4, 5)
    out.append(Case("matmul_vector_left", module([("a", tensor((4,), "float32")), ("b", tensor((3, 4, 5), "float32"))],
                                                 "R.matmul(a, b)", tensor((3, 5), "float32")),
                    runs=[([v, w], via_float64(np.matmul, v, w))], spec=ids, tags=tags + ["1-d"]))
    p, q = f32(rng, 2, 3, 4), f32(rng, 4)
    out.append(Case("matmul_vector_right", module([("a", tensor(("n", 3, 4), "float32")), ("b", tensor((4,), "float32"))],
                                                  "R.matmul(a, b)", tensor(("n", 3), "float32")),
                    runs=[([p, q], via_float64(np.matmul, p, q))], spec=ids, tags=tags + ["1-d", "symbolic"]))
    out.append(Case("matmul_vector_vector", module([("a", tensor((4,), "float32")), ("b", tensor((4,), "float32"))],
                                                   "R.matmul(a, b)", tensor((), "float32")),
                    runs=[([q, q], via_float64(np.matmul, q, q))], spec=ids, tags=tags + ["1-d"]))
    i8a = rng.integers(-100, 100, (2, 3)).astype("int8")
    i8b = rng.integers(-100, 100, (3, 4)).astype("int8")
    wide = i8a.astype("int64") @ i8b.astype("int64")
    out.append(Case("matmul_int8_out_int32",
                    module([("a", tensor((2, 3), "int8")), ("b", tensor((3, 4), "int8"))],
                           'R.matmul(a, b, out_dtype="int32")', tensor((2, 4), "int32")),
                    runs=[([i8a, i8b], wide.astype("int32"))], spec=ids + ["OP.matmul.C3"], tags=tags + ["int"],
                    description="operands are converted to out_dtype before multiplying"))
    out.append(Case("matmul_int8_wraps",
                    module([("a", tensor((2, 3), "int8")), ("b", tensor((3, 4), "int8"))],
                           "R.matmul(a, b)", tensor((2, 4), "int8")),
                    runs=[([i8a, i8b], ((wide + 128) % 256 - 128).astype("int8"))], spec=ids, tags=tags + ["int"],
                    description="int8 products and sums wrap"))
    g, h = f32(rng, 2, 2), f32(rng, 2, 3)
    out.append(Case("matmul_zero_length_reduction",
                    module([("a", tensor((2, "k"), "float32")), ("b", tensor(("k", 3), "float32"))],
                           "R.matmul(a, b)", tensor((2, 3), "float32")),
                    runs=[([g, h], via_float64(np.matmul, g, h)),
                          ([np.zeros((2, 0), "float32"), np.zeros((0, 3), "float32")], np.zeros((2, 3), "float32"))],
                    spec=ids, tags=tags + ["empty"], oracle="hand",
                    description="a sum of no products is 0 (the first run leaves non-zero memory behind)"))
    out.append(Case("matmul_reduction_mismatch_at_run_time",
                    module([("a", tensor((2, "k"), "float32")), ("b", tensor(("l", 3), "float32"))],
                           "R.matmul(a, b)", tensor((2, 3), "float32")),
                    runs=[Fails([np.zeros((2, 4), "float32"), np.zeros((5, 3), "float32")], "op_runtime")],
                    spec=["OP.matmul.C2", "OP.SEM.2"], tags=tags + ["error"], oracle="spec-rule"))
    for name, sa, sb, msg in (("matmul_reduction_mismatch", (2, 3), (4, 5), "C2"),
                              ("matmul_scalar_operand", (), (3,), "C4"),
                              ("matmul_batch_not_broadcastable", (2, 2, 3), (3, 3, 4), "C1")):
        out.append(Invalid(name, module([("a", tensor(sa, "float32")), ("b", tensor(sb, "float32"))],
                                        "R.matmul(a, b)", tensor(2, "float32")),
                           "struct_info", spec=[f"OP.matmul.{msg}"], tags=tags + ["invalid"]))
    out.append(Invalid("matmul_dtype_mismatch",
                       module([("a", tensor((2, 3), "int32")), ("b", tensor((3, 4), "float32"))],
                              "R.matmul(a, b)", tensor((2, 4), "float32")),
                       "struct_info", spec=["OP.matmul.C3", "NORM.OP.DTYPE.1"], tags=tags + ["invalid"]))
    return out


def einsum_cases():
    out = []
    tags = ["op:einsum", "linalg"]
    ids = ["OP.einsum.C1", "OP.einsum.C2", "OP.LINALG.SEM.2"]
    rng = rng_for("einsum")
    a, b = f32(rng, 2, 3), f32(rng, 3, 4)

    def e(sub):
        return lambda *xs: np.einsum(sub, *xs)

    out.append(Case("einsum_matmul", module([("a", tensor(("n", 3), "float32")), ("b", tensor((3, 4), "float32"))],
                                            'R.einsum((a, b), "ij,jk->ik")', tensor(("n", 4), "float32")),
                    runs=[([x, b], via_float64(e("ij,jk->ik"), x, b)) for x in (a, f32(rng, 5, 3))],
                    spec=ids, tags=tags + ["symbolic"]))
    x, y = f32(rng, 2, 3, 4), f32(rng, 2, 4, 5)
    out.append(Case("einsum_batch", module([("a", tensor((2, 3, 4), "float32")), ("b", tensor((2, 4, 5), "float32"))],
                                           'R.einsum((a, b), "bij,bjk->bik")', tensor((2, 3, 5), "float32")),
                    runs=[([x, y], via_float64(e("bij,bjk->bik"), x, y))], spec=ids, tags=tags))
    p = f32(rng, 2, 3, 4)
    q = f32(rng, 4, 5)
    out.append(Case("einsum_implicit_ellipsis",
                    module([("a", tensor((2, 3, 4), "float32")), ("b", tensor((4, 5), "float32"))],
                           'R.einsum((a, b), "...j,jk")', tensor((2, 3, 5), "float32")),
                    runs=[([p, q], via_float64(e("...j,jk"), p, q))], spec=ids, tags=tags + ["ellipsis"],
                    description="implicit output: the ellipsis, then the labels seen once (ASCII order)"))
    s = f32(rng, 3, 3)
    out.append(Case("einsum_trace", module([("a", tensor((3, 3), "float32"))], 'R.einsum((a,), "ii")',
                                           tensor((), "float32")),
                    runs=[([s], via_float64(e("ii"), s))], spec=ids, tags=tags + ["diagonal"]))
    out.append(Case("einsum_diagonal", module([("a", tensor(("n", "n"), "float32"))], 'R.einsum((a,), "ii->i")',
                                              tensor(("n",), "float32")),
                    runs=[([s], np.diagonal(s).copy()), ([s[:2, :2]], np.diagonal(s[:2, :2]).copy())],
                    spec=ids, tags=tags + ["diagonal", "symbolic"]))
    c, d = f32(rng, 2, 1), f32(rng, 3, 4)
    out.append(Case("einsum_label_broadcast",
                    module([("a", tensor((2, 1), "float32")), ("b", tensor((3, 4), "float32"))],
                           'R.einsum((a, b), "ij,jk->ik")', tensor((2, 4), "float32")),
                    runs=[([c, d], via_float64(lambda g, h: np.broadcast_to(g, (2, 3)) @ h, c, d))],
                    spec=ids, tags=tags + ["broadcast"], description="a label of extent 1 broadcasts against 3"))
    u, v, w = f32(rng, 2), f32(rng, 3), f32(rng, 4)
    out.append(Case("einsum_three_operands",
                    module([("a", tensor((2,), "float32")), ("b", tensor((3,), "float32")), ("c", tensor((4,), "float32"))],
                           'R.einsum((a, b, c), "i,j,k->kji")', tensor((4, 3, 2), "float32")),
                    runs=[([u, v, w], via_float64(e("i,j,k->kji"), u, v, w))], spec=ids, tags=tags))
    for name, params, sub, cid in (
            ("einsum_extent_mismatch", [("a", (2, 3)), ("b", (4, 5))], "ij,jk->ik", "C2"),
            ("einsum_operand_count", [("a", (3, 3))], "ij,jk->ik", "C2"),
            ("einsum_bad_character", [("a", (3,))], "1i->i", "C2"),
            ("einsum_unknown_output_label", [("a", (3, 3))], "ij->k", "C3")):
        plist = [(n_, tensor(sh, "float32")) for n_, sh in params]
        ops = "(" + ", ".join(n_ for n_, _ in params) + ("," if len(params) == 1 else "") + ")"
        spec = [f"OP.einsum.{cid}"] + (["OP.LINALG.DIV.1"] if cid == "C3" else [])
        out.append(Invalid(name, module(plist, f'R.einsum({ops}, "{sub}")', tensor(1, "float32")),
                           "struct_info", spec=spec, tags=tags + ["invalid"]))
    out.append(Invalid("einsum_dtype_mismatch",
                       module([("a", tensor((2,), "float32")), ("b", tensor((2,), "int32"))], 'R.einsum((a, b), "i,i")',
                              tensor((), "float32")),
                       "struct_info", spec=["OP.einsum.C1"], tags=tags + ["invalid"]))
    return out


def float16_sequential(sub: str, *arrays) -> np.ndarray:
    """OP.LINALG.SEM.5 one scalar at a time (explicit subscripts without ellipsis): the summed labels
    nested in ASCII order, the operands multiplied left to right, every product and sum rounded to
    float16; a dim of 1 is read at index 0."""
    ins, outs = sub.split("->")
    subs = ins.split(",")
    extent = {}
    for t, a in zip(subs, arrays):
        for lab, n_ in zip(t, a.shape):
            extent[lab] = max(extent.get(lab, 1), n_)
    red = sorted(set("".join(subs)) - set(outs))
    res = np.zeros([extent[lab] for lab in outs], np.float16)
    for oi in itertools.product(*[range(extent[lab]) for lab in outs]):
        acc = np.float16(0)
        for ri in itertools.product(*[range(extent[lab]) for lab in red]):
            env = dict(zip(outs, oi))
            env.update(zip(red, ri))
            prod = None
            for t, a in zip(subs, arrays):
                v = a[tuple(env[lab] if a.shape[d] > 1 else 0 for d, lab in enumerate(t))]
                prod = v if prod is None else np.float16(prod * v)
            acc = prod if not red else np.float16(acc + prod)
        res[oi] = acc
    return res


def float16_cases():
    """OP.LINALG.SEM.5: float16 contractions are exact (tolerance 0): the sequential float16 loop,
    which differs from the exact sum rounded once by up to 0.0625 on these shapes."""
    out = []
    rng = rng_for("float16")
    a = (rng.standard_normal((4, 64)) * 2).astype("float16")
    b = (rng.standard_normal((64, 4)) * 2).astype("float16")
    exact = dict(rtol=0.0, atol=0.0,
                 description="float16 accumulated sequentially in float16, every product and sum rounded")
    for name, call in (("einsum_float16_sequential", 'R.einsum((a, b), "ij,jk->ik")'),
                       ("matmul_float16_sequential", "R.matmul(a, b)")):
        op = name.split("_")[0]
        out.append(Case(name, module([("a", tensor((4, 64), "float16")), ("b", tensor((64, 4), "float16"))],
                                     call, tensor((4, 4), "float16")),
                        runs=[([a, b], float16_sequential("ij,jk->ik", a, b))],
                        spec=[f"OP.{op}.C1", "OP.LINALG.SEM.5"], tags=[f"op:{op}", "linalg", "float16"], **exact))
    x = (rng.standard_normal((3, 6, 8)) * 2).astype("float16")
    y = (rng.standard_normal((6, 8)) * 2).astype("float16")
    z = (rng.standard_normal((8, 2)) * 2).astype("float16")
    out.append(Case("einsum_float16_loop_order",
                    module([("a", tensor((3, 6, 8), "float16")), ("b", tensor((6, 8), "float16")),
                            ("c", tensor((8, 2), "float16"))],
                           'R.einsum((a, b, c), "ikj,kj,jl->il")', tensor((3, 2), "float16")),
                    runs=[([x, y, z], float16_sequential("ikj,kj,jl->il", x, y, z))],
                    spec=["OP.einsum.C2", "OP.LINALG.SEM.2", "OP.LINALG.SEM.5"],
                    tags=["op:einsum", "linalg", "float16"],
                    **dict(exact, description="summed labels j (outer) then k, whatever the subscripts' order; "
                                              "three operands multiplied left to right")))
    return out


def outer_cases():
    out = []
    rng = rng_for("outer")
    a, b = rng.integers(-5, 6, 3).astype("int32"), rng.integers(-5, 6, 4).astype("int32")
    out.append(Case("outer_symbolic", module([("a", tensor(("n",), "int32")), ("b", tensor((4,), "int32"))],
                                             "R.outer(a, b)", tensor(("n", 4), "int32")),
                    runs=[([a, b], np.multiply.outer(a, b)), ([a[:1], b], np.multiply.outer(a[:1], b))],
                    spec=["OP.outer.C1", "OP.LINALG.SEM.3"], tags=["op:outer", "linalg", "symbolic"]))
    out.append(Invalid("outer_2d_operand",
                       module([("a", tensor((2, 3), "float32")), ("b", tensor((3,), "float32"))], "R.outer(a, b)",
                              tensor(2, "float32")),
                       "struct_info", spec=["OP.outer.C1"], tags=["op:outer", "linalg", "invalid"]))
    return out


def generate():
    return {CATEGORY: matmul_cases() + einsum_cases() + float16_cases() + outer_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_linalg"])
