"""The dist and ccl operators and operators on DTensors (spec chapter 16, pages ``spec/ops/dist.*``
and ``spec/ops/ccl.*``): sharding inference (DIST.OP.*), the global view (DIST.SEM.*) and the local
view on the simulated workers of a mesh (DIST.LOCAL.*, cases requiring ``dist-local-view``).

Oracles: NumPy restatements of the global computation; collectives restated per worker by hand.
"""

import re
from dataclasses import replace

import numpy as np

from gen_dist import MESHES, dist_module
from relax_conformance.gen import Case, Fails, Invalid

RNG = np.random.default_rng(20261206)
LOCAL = ["dist-local-view"]
MESH2 = 'I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2)), R.device_mesh((2, 2), I.Range(0, 4))]})'


def f32(*shape):
    return RNG.standard_normal(shape).astype("float32")


MLP = '''
@R.function
def main(x: R.DTensor((4, 8), "float32", "mesh[0]", "R"), w1: R.DTensor((8, 6), "float32", "mesh[0]", "S[1]"), w2: R.DTensor((6, 8), "float32", "mesh[0]", "S[0]")) -> R.DTensor((4, 8), "float32", "mesh[0]", "R"):
    h: R.DTensor((4, 6), "float32", "mesh[0]", "S[1]") = R.matmul(x, w1)
    g: R.DTensor((4, 6), "float32", "mesh[0]", "S[1]") = R.nn.relu(h)
    y: R.DTensor((4, 8), "float32", "mesh[0]", "R") = R.matmul(g, w2)
    z: R.DTensor((4, 8), "float32", "mesh[0]", "R") = R.ccl.allreduce(y, op_type="sum")
    r: R.DTensor((4, 8), "float32", "mesh[0]", "S[0]") = R.dist.redistribute(z, "mesh[0]", "S[0]")
    a: R.DTensor((4, 8), "float32", "mesh[0]", "S[0]") = R.dist.annotate_sharding(r, device_mesh="mesh[0]", placement="S[0]")
    q: R.DTensor((4, 8), "float32", "mesh[0]", "S[0]") = R.add(a, a)
    o: R.DTensor((4, 8), "float32", "mesh[0]", "R") = R.dist.redistribute(q, "mesh[0]", "R")
    return o
'''


def view_cases():
    out = []
    text = dist_module(MLP, MESH2)
    runs = []
    for _ in range(2):
        x, w1, w2 = f32(4, 8), f32(8, 6), f32(6, 8)
        runs.append(([x, w1, w2], 2 * (np.maximum(x @ w1, 0) @ w2)))
    spec = ["DIST.OP.2", "DIST.OP.3", "OP.dist.redistribute.C1", "OP.dist.annotate_sharding.C1", "OP.ccl.allreduce.C1"]
    out.append(Case("mlp_global_view", text, runs=runs, spec=spec + ["DIST.SEM.1", "DIST.LOCAL.2"],
                    tags=["dist", "global-view"], rtol=1e-4, atol=1e-5,
                    description="a two-layer MLP sharded Megatron-style; in the global view the allreduce runs on a "
                                "lone worker and the layout operators keep the values"))
    out.append(Case("mlp_local_view", text, runs=runs, spec=spec + ["DIST.LOCAL.1", "DIST.LOCAL.3", "OP.ccl.allreduce.C2"],
                    tags=["dist", "local-view"], requires=LOCAL, rtol=1e-4, atol=1e-5,
                    description="the same program on 2 workers: each multiplies its column block of w1 and row block of "
                                "w2, the allreduce sums the partial products, redistribute moves the shards"))
    mesh22 = dist_module('''
@R.function
def main(x: R.DTensor((8, 4), "float32", "mesh[1]", "S[0], S[1]"), y: R.DTensor((8, 4), "float32", "mesh[1]", "S[0], S[1]")) -> R.DTensor((4, 8), "float32", "mesh[1]", "S[0], R"):
    s: R.DTensor((8, 4), "float32", "mesh[1]", "S[0], S[1]") = R.multiply(x, y)
    t: R.DTensor((4, 8), "float32", "mesh[1]", "S[1], S[0]") = R.permute_dims(s, [1, 0])
    u: R.DTensor((4, 8), "float32", "mesh[1]", "S[0], R") = R.dist.redistribute(t, "mesh[1]", "S[0], R")
    return u
''', MESH2)
    x, y = f32(8, 4), f32(8, 4)
    for local in (False, True):
        out.append(Case(f"mesh_2x2_{'local' if local else 'global'}_view", mesh22, runs=[([x, y], (x * y).T)],
                        spec=["DIST.OP.2", "DIST.OP.3", "DIST.PLACE.1", "OP.dist.redistribute.C1"]
                        + (["DIST.LOCAL.1", "DIST.LOCAL.3"] if local else ["DIST.SEM.1"]),
                        tags=["dist", "local-view" if local else "global-view"], requires=LOCAL if local else (),
                        description="a 2x2 mesh: both axes sharded, transposed (the shard axes follow), then laid out "
                                    "anew"))
    return out


CCL = '''
@R.function
def main(x: R.DTensor((4,), "float32", "mesh[0]", "S[0]"), t: R.Tensor((4, 3), "float32")) -> R.Tuple(R.DTensor((4,), "float32", "mesh[0]", "S[0]"), R.Tensor((2, 3), "float32"), R.Tensor((4, 3), "float32"), R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32")):
    s: R.Tensor((2, 3), "float32") = R.ccl.scatter_from_worker0(t, num_workers=2, axis=0)
    g: R.Tensor((4, 3), "float32") = R.ccl.allgather(s, num_workers=2)
    b: R.Tensor((2, 3), "float32") = R.ccl.broadcast_from_worker0(s)
    m: R.Tensor((2, 3), "float32") = R.ccl.allreduce(s, op_type="max")
    v: R.Tensor((2, 3), "float32") = R.ccl.allreduce(s, op_type="avg")
    return (x, s, g, b, m, v)
'''


def local_cases():
    out = []
    text = dist_module(CCL, MESH2)
    x, t = f32(4), f32(4, 3)
    lo, hi = t[:2], t[2:]
    want = (x, lo, t, lo, np.maximum(lo, hi), (lo + hi) / 2)
    out.append(Case("collectives_on_two_workers", text, runs=[([x, t], want)], requires=LOCAL,
                    spec=["DIST.LOCAL.1", "DIST.LOCAL.2", "DIST.LOCAL.3", "OP.ccl.scatter_from_worker0.C1",
                          "OP.ccl.allgather.C1", "OP.ccl.broadcast_from_worker0.C1", "OP.ccl.allreduce.C1",
                          "OP.ccl.broadcast_from_worker0.C2", "OP.ccl.scatter_from_worker0.C2"],
                    tags=["dist", "local-view", "ccl"],
                    description="scatter from worker 0, gather back, broadcast worker 0's block, max and avg "
                                "over the two workers; plain results are worker 0's"))
    kernel = dist_module('''
@T.prim_func
def add_one(a: T.Buffer((T.int64(2), T.int64(8)), "float32"), b: T.Buffer((T.int64(2), T.int64(8)), "float32")):
    for i, j in T.grid(T.int64(2), T.int64(8)):
        with T.sblock("b"):
            vi, vj = T.axis.remap("SS", [i, j])
            b[vi, vj] = a[vi, vj] + T.float32(1)

@R.function
def main(x: R.DTensor((4, 8), "float32", "mesh[0]", "S[0]")) -> R.DTensor((4, 8), "float32", "mesh[0]", "S[1]"):
    cls = Module
    y = R.dist.call_tir_local_view(cls.add_one, (x,), out_sinfo=R.DTensor((4, 8), "float32", "mesh[0]", "S[0]"))
    z = R.dist.redistribute_replica_to_shard(R.dist.redistribute(y, "mesh[0]", "R"), num_workers=2, axis=1)
    return z
''', MESH2).replace("@T.prim_func\n", "@T.prim_func(s_tir=True)\n")
    x = f32(4, 8)
    out.append(Case("call_tir_local_view_on_shards", kernel, runs=[([x], x + 1)], requires=LOCAL,
                    spec=["DIST.SEM.2", "OP.dist.call_tir_local_view.C1", "OP.dist.redistribute_replica_to_shard.C1",
                          "OP.dist.redistribute_replica_to_shard.C2", "DIST.LOCAL.3"],
                    tags=["dist", "local-view", "call_tir"],
                    description="the kernel sees (2, 8) shards; the result is gathered, then split along axis 1 "
                                "again by each worker"))
    out.append(Case("call_tir_local_view_needs_the_local_view", kernel, runs=[Fails([x], "unsupported")],
                    spec=["DIST.SEM.2"], tags=["dist", "global-view"],
                    description="in the global view call_tir_local_view is refused"))
    bad = dist_module('''
@R.function
def main(x: R.DTensor((4,), "float32", "mesh[0]", "S[0]"), t: R.Tensor((2,), "float32")) -> R.Tensor((8,), "float32"):
    g: R.Tensor((8,), "float32") = R.ccl.allgather(t, num_workers=4)
    return g
''', MESH2)
    out.append(Case("allgather_of_more_workers_than_the_mesh", bad, runs=[Fails([f32(4), f32(2)], "op_runtime")],
                    requires=LOCAL, spec=["OP.ccl.allgather.C2", "DIST.LOCAL.2"], tags=["dist", "local-view", "ccl"],
                    description="num_workers=4 on a mesh of 2 workers"))
    r2s = dist_module('''
@R.function
def main(t: R.Tensor((4, 6), "float32")) -> R.Tensor((4, 3), "float32"):
    s: R.Tensor((4, 3), "float32") = R.dist.redistribute_replica_to_shard(t, num_workers=2, axis=1)
    return s
''', MESH2)
    out.append(Case("replica_to_shard_on_a_lone_worker", r2s, runs=[Fails([f32(4, 6)], "op_runtime")],
                    spec=["OP.dist.redistribute_replica_to_shard.C3", "DIST.LOCAL.2"], tags=["dist", "global-view"],
                    description="outside the local view the program is one worker, and num_workers is 2"))
    huge = dist_module('''
@R.function
def main(x: R.DTensor((4,), "float32", "mesh[0]", "R, R")) -> R.DTensor((4,), "float32", "mesh[0]", "R, R"):
    return x
''', 'I.module_global_infos({"mesh": [R.device_mesh((1048576, 1048576), I.Range(0, 1099511627776))]})')
    out.append(Case("local_view_of_a_mesh_past_max_workers", huge,
                    runs=[Fails([np.arange(4, dtype="float32")], "limit_exceeded")], requires=LOCAL,
                    spec=["RUNTIME.LIMIT.9", "DIST.LOCAL.1"], tags=["dist", "local-view", "limits"],
                    description="a mesh of 2**40 devices is written freely, but its local view would run 2**40 "
                                "workers: limit_exceeded before any worker starts"))
    return out


def _fn(params: str, body: str, ret: str = "R.Object") -> str:
    return f"@R.function\ndef main({params}) -> {ret}:\n" + "".join(f"    {ln}\n" for ln in body.split("; "))


def invalid_cases():
    d = '"float32", "mesh[0]"'
    bad = {
        "tensor_and_dtensor_mixed": (f'x: R.DTensor((4,), {d}, "R"), y: R.Tensor((4,), "float32")',
                                     "z = R.add(x, y); return z", ["DIST.OP.1"]),
        "dtensors_on_two_meshes": (f'x: R.DTensor((4,), {d}, "R"), y: R.DTensor((4,), "float32", "mesh[1]", "R, R")',
                                   "z = R.add(x, y); return z", ["DIST.OP.1"]),
        "conflicting_shards": (f'x: R.DTensor((4, 4), {d}, "S[0]"), y: R.DTensor((4, 4), {d}, "S[1]")',
                               "z = R.add(x, y); return z", ["DIST.OP.3"]),
        "softmax_over_a_sharded_axis": (f'x: R.DTensor((4, 4), {d}, "S[1]")', "z = R.nn.softmax(x, axis=1); return z",
                                        ["DIST.OP.4"]),
        "operator_without_a_sharding_rule": (f'x: R.DTensor((4, 4), {d}, "S[0]")',
                                             "z = R.concat((x, x), axis=1); return z", ["DIST.OP.2"]),
        "redistribute_of_a_plain_tensor": ('x: R.Tensor((4,), "float32")',
                                           'z = R.dist.redistribute(x, "mesh[0]", "R"); return z',
                                           ["OP.dist.redistribute.C1"]),
        "annotation_placement_of_the_wrong_rank": ('x: R.Tensor((4,), "float32")',
                                                   'z = R.dist.annotate_sharding(x, "mesh[0]", "S[1]"); return z',
                                                   ["OP.dist.annotate_sharding.C1"]),
        "replica_to_shard_axis_out_of_range": ('x: R.Tensor((4,), "float32")',
                                               "z = R.dist.redistribute_replica_to_shard(x, num_workers=2, axis=1); "
                                               "return z", ["OP.dist.redistribute_replica_to_shard.C1"]),
        "replica_to_shard_does_not_divide": ('x: R.Tensor((5,), "float32")',
                                             "z = R.dist.redistribute_replica_to_shard(x, num_workers=2, axis=0); "
                                             "return z", ["OP.dist.redistribute_replica_to_shard.C2"]),
        "allreduce_unknown_op_type": ('x: R.Tensor((4,), "float32")', 'z = R.ccl.allreduce(x, op_type="mean"); return z',
                                      ["OP.ccl.allreduce.C1"]),
        "allgather_of_a_dtensor": (f'x: R.DTensor((4,), {d}, "R")', "z = R.ccl.allgather(x, num_workers=2); return z",
                                   ["OP.ccl.allgather.C1"]),
        "broadcast_of_a_dtensor": (f'x: R.DTensor((4,), {d}, "R")', "z = R.ccl.broadcast_from_worker0(x); return z",
                                   ["OP.ccl.broadcast_from_worker0.C1"]),
        "scatter_does_not_divide": ('x: R.Tensor((5,), "float32")',
                                    "z = R.ccl.scatter_from_worker0(x, num_workers=2, axis=0); return z",
                                    ["OP.ccl.scatter_from_worker0.C1"]),
    }
    return [Invalid(f"rejects_{name}", dist_module(_fn(params, body), MESH2), "struct_info", spec=spec,
                    tags=["dist"], description=name.replace("_", " ")) for name, (params, body, spec) in bad.items()]


def dist_call_tir_cases():
    text = dist_module('''
@T.prim_func(s_tir=True)
def double(a: T.Buffer((T.int64(4), T.int64(8)), "float32"), b: T.Buffer((T.int64(4), T.int64(8)), "float32")):
    for i, j in T.grid(T.int64(4), T.int64(8)):
        with T.sblock("b"):
            vi, vj = T.axis.remap("SS", [i, j])
            b[vi, vj] = a[vi, vj] * T.float32(2)

@R.function
def main(x: R.DTensor((4, 8), "float32", "mesh[0]", "S[0]")) -> R.DTensor((4, 8), "float32", "mesh[0]", "S[0]"):
    cls = Module
    y = R.dist.call_tir(cls.double, (x,), out_sinfo=R.DTensor((4, 8), "float32", "mesh[0]", "S[0]"))
    return y
''', MESH2)
    x = f32(4, 8)
    return [Case("dist_call_tir_on_global_tensors", text, runs=[([x], 2 * x)], spec=["DIST.TEXT.4", "DIST.SEM.1"],
                 tags=["dist", "global-view", "call_tir"],
                 description="R.dist.call_tir: the PrimFunc computes on the global (4, 8) tensors")]


HEADS = '''
@R.function
def main(o: R.DTensor((4, 3, 2), "float32", "mesh[0]", "S[0]"), w: R.DTensor((8, 5), "float32", "mesh[0]", "S[0]")) -> R.DTensor((3, 5), "float32", "mesh[0]", "R"):
    t: R.DTensor((3, 4, 2), "float32", "mesh[0]", "S[1]") = R.permute_dims(o, [1, 0, 2])
    r: R.DTensor((3, 8), "float32", "mesh[0]", "S[1]") = R.reshape(t, R.shape([3, 8]))
    p: R.DTensor((3, 5), "float32", "mesh[0]", "R") = R.matmul(r, w)
    y: R.DTensor((3, 5), "float32", "mesh[0]", "R") = R.ccl.allreduce(p, op_type="sum")
    return y
'''


def reshape_cases():
    """The attention output projection of tensor parallelism: (heads, tokens, head_dim) sharded by
    heads, transposed and reshaped to (tokens, heads * head_dim) sharded by columns (DIST.OP.2's
    reshape rule), multiplied by the row-sharded projection (DIST.LOCAL.4)."""
    rng = np.random.default_rng(20261205)
    text = dist_module(HEADS, MESH2)
    runs = []
    for _ in range(2):
        o, w = rng.standard_normal((4, 3, 2)).astype("float32"), rng.standard_normal((8, 5)).astype("float32")
        runs.append(([o, w], np.transpose(o, (1, 0, 2)).reshape(3, 8) @ w))
    spec = ["DIST.OP.2", "DIST.OP.3", "OP.ccl.allreduce.C1"]
    out = [Case("reshape_merges_sharded_heads_global_view", text, runs=runs, spec=spec + ["DIST.SEM.1"],
                tags=["dist", "global-view", "op:reshape"], rtol=1e-5, atol=1e-5,
                description="heads sharded, transposed and merged with head_dim into one sharded axis; in the "
                            "global view the values are the global tensors"),
            Case("reshape_merges_sharded_heads_local_view", text, runs=runs,
                 spec=spec + ["DIST.LOCAL.1", "DIST.LOCAL.4", "OP.ccl.allreduce.C2"],
                 tags=["dist", "local-view", "op:reshape"], requires=LOCAL, rtol=1e-5, atol=1e-5,
                 description="each of 2 workers reshapes its (3, 2, 2) block to (3, 4), its block of the (3, 8) "
                             "result, multiplies its rows of w, and the allreduce sums the partial products")]
    dropped = dist_module('''
@R.function
def main(x: R.DTensor((4, 6), "float32", "mesh[0]", "S[1]")) -> R.DTensor((24,), "float32", "mesh[0]", "R"):
    r: R.DTensor((24,), "float32", "mesh[0]", "R") = R.reshape(x, R.shape([24]))
    return r
''', MESH2)
    x = rng.standard_normal((4, 6)).astype("float32")
    out.append(Case("reshape_of_a_sharded_axis_it_does_not_keep_global_view", dropped, runs=[([x], x.reshape(24))],
                    spec=["DIST.OP.2", "DIST.OP.3", "DIST.SEM.1"], tags=["dist", "global-view", "op:reshape"],
                    description="flattening a tensor sharded on its inner axis: no operand axis is paired with the "
                                "result's, which is replicated; the global view reshapes the global tensor"))
    out.append(Case("reshape_of_a_sharded_axis_it_does_not_keep_local_view", dropped,
                    runs=[Fails([x], "op_runtime")], requires=LOCAL, spec=["DIST.LOCAL.4"],
                    tags=["dist", "local-view", "op:reshape"],
                    description="the same on 2 workers: a worker holds a (4, 3) block, not the replicated (24,) "
                                "result, which only an all-gather would give it"))
    return out


def _with_op_tags(case: Case) -> Case:
    """The case tagged with the dist and ccl operators its module calls (``op:dist.redistribute``, ...),
    as every operator case is, so that the operator status counts it."""
    ops = sorted(set(re.findall(r"R\.((?:dist|ccl)\.\w+)\(", case.module)) - {"dist.call_tir"})
    return replace(case, tags=tuple(case.tags) + tuple(f"op:{op}" for op in ops if f"op:{op}" not in case.tags))


def generate():
    cases = view_cases() + local_cases() + invalid_cases() + dist_call_tir_cases() + reshape_cases()
    return {"dist_ops": [_with_op_tags(c) for c in cases]}


__all__ = ["generate", "MESHES"]
