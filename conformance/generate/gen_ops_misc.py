"""Operators new in TVM 0.27 outside the larger families: ``size``, ``reverse_sequence``,
``multinomial_from_uniform``, ``call_py_func`` and ``nn.attention_var_len`` (their spec pages).

Oracles: numpy formulas written here (products of extents, the reversal index rule, inverse-CDF
sampling with a cumulative sum in float32, a plain softmax attention per sequence in float64) and
values worked out by hand.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Malformed

from case_helpers import module, module_body, rng_for, tensor

CATEGORY = "op_misc"
TOL = dict(rtol=1e-5, atol=1e-5)


def size_cases():
    tags = ["op:size", "inspection"]
    ids = ["OP.size.C2"]
    out = [Case("size_static", module([("x", tensor((2, 3, 4)))], "R.size(x)", tensor((), "int64")),
                runs=[([np.zeros((2, 3, 4), "float32")], np.array(24, "int64"))], spec=ids, tags=tags, oracle="hand")]
    runs = [([np.zeros(s, "int8")], np.array(int(np.prod(s)), "int64")) for s in ((3, 0), (5, 7), (1, 1))]
    out.append(Case("size_symbolic_and_empty", module([("x", tensor(("n", "m"), "int8"))], "R.size(x)"),
                    runs=runs, spec=ids, tags=tags + ["symbolic", "edge"], description="an extent 0 gives 0"))
    out.append(Case("size_of_0d", module([("x", tensor(()))], "R.size(x)"),
                    runs=[([np.array(2.5, "float32")], np.array(1, "int64"))], spec=ids, tags=tags + ["edge"],
                    oracle="hand"))
    out.append(Invalid("size_of_shape", module([("s", "R.Shape([2, 3])")], "R.size(s)"), "struct_info",
                       spec=["OP.size.C1"], tags=tags + ["invalid"]))
    return out


def reverse_np(x, lens, seq_axis, batch_axis):
    out = x.copy()
    d = x.shape[seq_axis]
    for idx in np.ndindex(*x.shape):
        s, b = idx[seq_axis], idx[batch_axis]
        n = int(lens[b])
        src = s if (n <= 1 or s >= n) else (d - 1 - s if n > d else n - 1 - s)
        j = list(idx)
        j[seq_axis] = src
        out[idx] = x[tuple(j)]
    return out


def reverse_sequence_cases():
    tags = ["op:reverse_sequence", "manipulation"]
    ids = ["OP.reverse_sequence.C5"]
    out = []
    x = np.arange(8, dtype="int32").reshape(2, 4)
    out.append(Case("reverse_sequence_hand", module([("x", tensor((2, 4), "int32")), ("l", tensor((2,), "int64"))],
                                                    "R.reverse_sequence(x, l)", tensor((2, 4), "int32")),
                    runs=[([x, np.array([3, 9], "int64")], np.array([[2, 1, 0, 3], [7, 6, 5, 4]], "int32"))],
                    spec=ids + ["OP.reverse_sequence.C1"], tags=tags, oracle="hand",
                    description="a length beyond the axis reverses it all"))
    rng = rng_for("reverse_sequence")
    x3 = rng.standard_normal((5, 3, 2)).astype("float32")
    lens = np.array([0, 1, 4, -2, 5], "int32")
    out.append(Case("reverse_sequence_seq_axis_0_batch_axis_1",
                    module([("x", tensor((5, 3, 2))), ("l", tensor((3,), "int32"))],
                           "R.reverse_sequence(x, l, seq_axis=0, batch_axis=1)", tensor((5, 3, 2))),
                    runs=[([x3, lens[:3]], reverse_np(x3, lens[:3], 0, 1))], spec=ids, tags=tags))
    xs = rng.standard_normal((4, 6)).astype("float32")
    out.append(Case("reverse_sequence_symbolic_edge_lengths",
                    module([("x", tensor(("b", 6))), ("l", tensor(("c",), "int32"))], "R.reverse_sequence(x, l)"),
                    runs=[([xs, lens[1:]], reverse_np(xs, lens[1:], 1, 0)),
                          Fails([xs, lens[:3]], "op_runtime")],
                    spec=ids + ["OP.reverse_sequence.C4"], tags=tags + ["symbolic", "edge"],
                    description="lengths 1, 4, -2 and 5; then three lengths for four batch rows"))
    p = [("x", tensor((2, 4))), ("l", tensor((2,), "int32"))]
    for name, call, cid, params in (
            ("reverse_sequence_float_lengths", "R.reverse_sequence(x, l)", "C2",
             [("x", tensor((2, 4))), ("l", tensor((2,)))]),
            ("reverse_sequence_axis_out_of_range", "R.reverse_sequence(x, l, seq_axis=2)", "C3", p),
            ("reverse_sequence_lengths_mismatch", "R.reverse_sequence(x, l, batch_axis=1)", "C4", p)):
        out.append(Invalid(name, module(params, call), "struct_info", spec=[f"OP.reverse_sequence.{cid}"],
                           tags=tags + ["invalid"]))
    return out


def sample_np(prob, u, idx):
    c = np.cumsum(prob.astype("float32"), axis=1, dtype="float32")
    out = []
    for i in range(len(u)):
        row = c[int(idx[i, 0])]
        hits = np.nonzero(u[i, 0] < row)[0]
        out.append(hits[0] if len(hits) else prob.shape[1] - 1)
    return np.array(out, "int64").reshape(-1, 1)


def multinomial_cases():
    tags = ["op:multinomial_from_uniform", "sampling"]
    ids = ["OP.multinomial_from_uniform.C4"]
    out = []
    p = np.array([[0.2, 0.3, 0.5], [0.3, 0.4, 0.3]], "float32")
    params = [("p", tensor((2, 3))), ("u", tensor((2, 1))), ("i", tensor((2, 1), "int64"))]
    out.append(Case("multinomial_hand", module(params, "R.multinomial_from_uniform(p, u, i)", tensor((2, 1), "int64")),
                    runs=[([p, np.array([[0.4], [0.9]], "float32"), np.array([[0], [1]], "int64")],
                           np.array([[1], [2]], "int64"))], spec=ids, tags=tags, oracle="hand"))
    rng = rng_for("multinomial")
    pr = rng.uniform(0.05, 1.0, (3, 6)).astype("float32")
    pr /= pr.sum(axis=1, keepdims=True)
    u = np.array([[0.05], [0.5], [0.93], [0.31], [0.999]], "float32")
    ix = np.array([[2], [0], [1], [1], [0]], "int32")
    out.append(Case("multinomial_many_samples_int32_out",
                    module([("p", tensor((3, 6))), ("u", tensor(("n", 1))), ("i", tensor(("n", 1), "int32"))],
                           'R.multinomial_from_uniform(p, u, i, dtype="int32")'),
                    runs=[([pr, u, ix], sample_np(pr, u, ix).astype("int32")),
                          Fails([pr, u[:2], np.array([[0], [3]], "int32")], "op_runtime")],
                    spec=ids + ["OP.multinomial_from_uniform.C5", "OP.multinomial_from_uniform.C6"], tags=tags + ["symbolic"],
                    description="samples away from the bucket edges; then a sample index outside the rows"))
    out.append(Case("multinomial_sample_beyond_total",
                    module(params, "R.multinomial_from_uniform(p, u, i)"),
                    runs=[([p * 0.5, np.array([[0.75], [0.0]], "float32"), np.array([[0], [1]], "int64")],
                           np.array([[2], [0]], "int64"))], spec=ids, tags=tags + ["edge"], oracle="hand",
                    description="rows summing to 0.5: a sample of 0.75 is past every sum and takes the last index"))
    for name, call, cid, ps in (
            ("multinomial_int_prob", "R.multinomial_from_uniform(p, u, i)", "C1",
             [("p", tensor((2, 3), "int32")), ("u", tensor((2, 1))), ("i", tensor((2, 1), "int64"))]),
            ("multinomial_1d_samples", "R.multinomial_from_uniform(p, u, i)", "C2",
             [("p", tensor((2, 3))), ("u", tensor((2,))), ("i", tensor((2, 1), "int64"))]),
            ("multinomial_rows_differ", "R.multinomial_from_uniform(p, u, i)", "C3",
             [("p", tensor((2, 3))), ("u", tensor((2, 1))), ("i", tensor((3, 1), "int64"))])):
        out.append(Invalid(name, module(ps, call), "struct_info", spec=[f"OP.multinomial_from_uniform.{cid}"],
                           tags=tags + ["invalid"]))
    return out


def call_py_func_cases():
    tags = ["op:call_py_func", "packed"]
    out = []
    x = np.array([1.0, 2.0, 3.0], "float32")
    y = np.array([0.5, -1.0, 4.0], "float32")
    out.append(Case("call_py_func_add",
                    module([("x", tensor((3,))), ("y", tensor((3,)))],
                           'R.call_py_func("conformance.add", x, y, out_sinfo=R.Tensor((3,), "float32"))'),
                    runs=[([x, y], x + y)], spec=["OP.call_py_func.C2", "OP.call_py_func.C3", "OP.call_py_func.C4"], tags=tags))
    out.append(Case("call_py_func_result_checked",
                    module([("x", tensor((3,)))],
                           'R.call_py_func("conformance.identity", x, out_sinfo=R.Tensor((4,), "float32"))'),
                    runs=[Fails([x], "shape_mismatch")], spec=["OP.call_py_func.C4", "EVAL.CALL.3"],
                    tags=tags + ["edge"], oracle="spec-rule", description="the result (3,) is declared (4,)"))
    out.append(Case("call_py_func_missing", module([("x", tensor((3,)))],
                                                   'R.call_py_func("conformance.not_registered", x, '
                                                   'out_sinfo=R.Tensor((3,), "float32"))'),
                    runs=[Fails([x], "packed_func")], spec=["OP.call_py_func.C4"], tags=tags + ["invalid"],
                    oracle="spec-rule"))
    out.append(Malformed("call_py_func_output_without_shape",
                         module([("x", tensor((3,)))],
                                'R.call_py_func("conformance.identity", x, out_sinfo=R.Tensor(ndim=1, dtype="float32"))'),
                         spec=["OP.call_py_func.C1"], tags=tags + ["invalid"],
                         description="TVM's constructor rejects an output without a shape expression"))
    # the same fault in TVM 0.27's spelling: a malformed text goes to TVM as written, so each release
    # reads the fault in its own keyword
    out.append(Malformed("call_py_func_output_without_shape_out_ty",
                         module([("x", tensor((3,)))],
                                'R.call_py_func("conformance.identity", x, out_ty=R.Tensor(ndim=1, dtype="float32"))'),
                         spec=["OP.call_py_func.C1"], tags=tags + ["invalid", "dialect:tvm-0.27"],
                         requires=["tvm-0.27-spelling"],
                         description="call_py_func_output_without_shape written with TVM 0.27's out_ty="))
    return out


def attention_np(q, k, v, scale=None, mask=None):
    """q (Lq, N, E), k (Lk, Nkv, E), v (Lk, Nkv, Ev) in float64."""
    lq, n, e = q.shape
    lk, nkv = k.shape[:2]
    rep = n // nkv
    k, v = np.repeat(k, rep, 1), np.repeat(v, rep, 1)
    s = np.einsum("qhe,khe->hqk", q, k) * (1 / np.sqrt(e) if scale is None else scale)
    if mask is not None:
        off = 0 if mask == "TopLeft" else abs(lq - lk)
        keep = np.arange(lk)[None, :] <= np.arange(lq)[:, None] + off
        s = np.where(keep, s, -np.inf)
    s = np.exp(s - s.max(-1, keepdims=True))
    s /= s.sum(-1, keepdims=True)
    return np.einsum("hqk,khe->qhe", s, v)


def var_len_np(q, k, v, sq, sk, scale=None, mask=None):
    q, k, v = (a.astype("float64")[0] for a in (q, k, v))
    out = np.zeros(q.shape[:2] + (v.shape[2],))
    for i in range(len(sq) - 1):
        if sq[i + 1] > sq[i]:
            out[sq[i]:sq[i + 1]] = attention_np(q[sq[i]:sq[i + 1]], k[sk[i]:sk[i + 1]], v[sk[i]:sk[i + 1]], scale,
                                                mask)
    return out[None].astype("float32")


def attention_var_len_cases():
    tags = ["op:nn.attention_var_len", "nn"]
    ids = ["OP.nn.attention_var_len.C3"]
    rng = rng_for("attention_var_len")
    q = rng.standard_normal((1, 7, 4, 8)).astype("float32")
    k = rng.standard_normal((1, 9, 2, 8)).astype("float32")
    v = rng.standard_normal((1, 9, 2, 5)).astype("float32")
    sq, sk = np.array([0, 2, 6], "int32"), np.array([0, 5, 9], "int32")
    mq, mk = np.array(4, "int32"), np.array(5, "int32")
    params = [("q", tensor((1, 7, 4, 8))), ("k", tensor((1, 9, 2, 8))), ("v", tensor((1, 9, 2, 5))),
              ("sq", tensor((3,), "int32")), ("sk", tensor((3,), "int32")), ("mq", tensor((), "int32")),
              ("mk", tensor((), "int32"))]
    out = [Case("attention_var_len_grouped_heads_scale",
                module(params, "R.nn.attention_var_len(q, k, v, sq, mq, sk, mk, scale=0.5)", tensor((1, 7, 4, 5))),
                runs=[([q, k, v, sq, sk, mq, mk], var_len_np(q, k, v, sq, sk, 0.5))],
                spec=ids + ["OP.nn.attention_var_len.C1", "OP.nn.attention_var_len.C4"], tags=tags,
                description="two sequences (2 and 4 query rows, 5 and 4 key rows); query row 6 is in none: 0",
                **TOL)]
    out.append(Case("attention_var_len_causal_bottom_right",
                    module(params, 'R.nn.attention_var_len(q, k, v, sq, mq, sk, mk, causal_mask="BottomRight")'),
                    runs=[([q, k, v, sq, sk, mq, mk], var_len_np(q, k, v, sq, sk, None, "BottomRight"))],
                    spec=ids + ["OP.nn.attention.C5"], tags=tags, **TOL))
    qs = rng.standard_normal((1, 5, 2, 4)).astype("float32")
    p2 = [("q", tensor((1, "t", 2, 4))), ("s", tensor(("b",), "int32")), ("m", tensor((), "int32"))]
    s2 = np.array([0, 2, 5], "int32")
    out.append(Case("attention_var_len_self_top_left",
                    module(p2, 'R.nn.attention_var_len(q, q, q, s, m, causal_mask="TopLeft")'),
                    runs=[([qs, s2, np.array(3, "int32")], var_len_np(qs, qs, qs, s2, s2, None, "TopLeft")),
                          Fails([qs, s2, np.array(2, "int32")], "op_runtime"),
                          Fails([qs, np.array([0, 3, 2], "int32"), np.array(3, "int32")], "op_runtime")],
                    spec=ids + ["OP.nn.attention_var_len.C5", "OP.nn.attention_var_len.C6"],
                    tags=tags + ["symbolic", "edge"],
                    description="keys default to the queries; then max_seqlen 2 < 3, then decreasing starts", **TOL))
    out.append(Invalid("attention_var_len_rank_3", module(
        [("q", tensor((7, 4, 8))), ("s", tensor((3,), "int32")), ("m", tensor((), "int32"))],
        "R.nn.attention_var_len(q, q, q, s, m)"), "struct_info", spec=["OP.nn.attention_var_len.C2"],
        tags=tags + ["invalid"]))
    return out


def generate():
    return {CATEGORY: size_cases() + reverse_sequence_cases() + multinomial_cases() + call_py_func_cases()
            + attention_var_len_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_misc"])
