"""AnnotateTIROpPattern (PASS.OPPATTERN.*): pattern kinds of hand-written and legalized kernels."""

import textwrap
from dataclasses import replace

import pytest

import relax_ref
from relax_ref.ir.attrs import Attrs
from relax_ref.transform import AnnotateTIROpPattern, LegalizeOps, OpPatternKind
from relax_ref.transform.annotate_tir_op_pattern import analyze_op_pattern, annotate_op_pattern

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n"

# name -> (TVMScript body of a module function, expected kind)
KERNELS = {
    "elemwise": ("""
    @T.prim_func(private=True, s_tir=True)
    def elemwise(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vi, vj]
    """, OpPatternKind.kElemWise),
    "bias": ("""
    @T.prim_func(private=True, s_tir=True)
    def bias(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vj]
    """, OpPatternKind.kElemWise),
    "broadcast": ("""
    @T.prim_func(private=True, s_tir=True)
    def broadcast(B: T.Buffer((1, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[0, vj]
    """, OpPatternKind.kBroadcast),
    "transpose": ("""
    @T.prim_func(private=True, s_tir=True)
    def transpose(A: T.Buffer((8, 4), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vj, vi]
    """, OpPatternKind.kInjective),
    "shift": ("""
    @T.prim_func(private=True, s_tir=True)
    def shift(A: T.Buffer((12,), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vj - vi + 3]
    """, OpPatternKind.kInjective),
    "reduce": ("""
    @T.prim_func(private=True, s_tir=True)
    def reduce(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4,), "float32")):
        for i, k in T.grid(4, 8):
            with T.sblock("c"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    C[vi] = T.float32(0)
                C[vi] = C[vi] + A[vi, vk]
    """, OpPatternKind.kCommReduce),
    "matmul": ("""
    @T.prim_func(private=True, s_tir=True)
    def matmul(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 2), "float32"), C: T.Buffer((4, 2), "float32")):
        for i, j, k in T.grid(4, 2, 8):
            with T.sblock("c"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    """, OpPatternKind.kOutEWiseFusable),
    "pool": ("""
    @T.prim_func(private=True, s_tir=True)
    def pool(A: T.Buffer((9,), "float32"), C: T.Buffer((4,), "float32")):
        for i, k in T.grid(4, 2):
            with T.sblock("c"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    C[vi] = T.float32(-3.0e38)
                C[vi] = T.max(C[vi], A[vi * 2 + vk])
    """, OpPatternKind.kOutEWiseFusable),
    "softmaxlike": ("""
    @T.prim_func(private=True, s_tir=True)
    def softmaxlike(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        S = T.sblock_alloc_buffer((4,))
        for i, k in T.grid(4, 8):
            with T.sblock("s"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + A[vi, vk]
        for i, j in T.grid(4, 8):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] / S[vi]
    """, OpPatternKind.kOutEWiseFusable),
    "gather": ("""
    @T.prim_func(private=True, s_tir=True)
    def gather(A: T.Buffer((8,), "float32"), I: T.Buffer((4,), "int64"), C: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("c"):
                vi = T.axis.spatial(4, i)
                C[vi] = A[I[vi]]
    """, OpPatternKind.kOpaque),
    "twostores": ("""
    @T.prim_func(private=True, s_tir=True)
    def twostores(A: T.Buffer((4,), "float32"), C: T.Buffer((8,), "float32")):
        for i in range(4):
            with T.sblock("c"):
                vi = T.axis.spatial(4, i)
                C[vi] = A[vi]
                C[vi + 4] = A[vi]
    """, OpPatternKind.kOpaque),
    "nostore": ("""
    @T.prim_func(private=True, s_tir=True)
    def nostore(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("c"):
                vi = T.axis.spatial(4, i)
                T.evaluate(A[vi])
    """, OpPatternKind.kOpaque),
    "noblock": ("""
    @T.prim_func(private=True)
    def noblock(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
        for i in range(4):
            C[i] = A[i] * T.float32(2)
    """, OpPatternKind.kOpaque),   # TVM 0.25: kElemWise (see DIVERGES_FROM_TVM)
}

# Kernels where relax-ref deliberately classifies differently from TVM 0.25 (PASS.OPPATTERN.1): a store
# outside every non-root block is opaque here; TVM calls it elementwise, which lets FuseOps group a
# function that FuseTIR cannot merge (found by check_pass on a legalized cumsum).
DIVERGES_FROM_TVM = {"noblock": OpPatternKind.kElemWise}


def _module(names):
    body = "\n".join(textwrap.indent(textwrap.dedent(KERNELS[n][0]), "    ") for n in names)
    return relax_ref.parse(HEADER + "@I.ir_module\nclass Module:\n" + body)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kind_of_hand_written_kernel(name):
    mod = _module([name])
    assert analyze_op_pattern(mod[name]) == KERNELS[name][1]  # (PASS.OPPATTERN.1)


def test_pass_annotates_every_prim_func_and_keeps_nonzero_patterns():
    mod = _module(["elemwise", "matmul", "gather"])
    out = AnnotateTIROpPattern()(mod)
    assert {n: out[n].attrs["op_pattern"] for n in ("elemwise", "matmul", "gather")} == \
        {"elemwise": 0, "matmul": 4, "gather": 8}
    assert AnnotateTIROpPattern()(out) is out  # idempotent: nonzero patterns are kept, zero recomputed
    forced = annotate_op_pattern(replace(mod["matmul"], attrs=Attrs({"op_pattern": 2})))
    assert forced.attrs["op_pattern"] == 2  # (PASS.OPPATTERN.2) an existing nonzero kind wins


LEGALIZED = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 8, 8), "float32"), w: R.Tensor((4, 3, 3, 3), "float32"), m: R.Tensor((8, 8), "float32"),
             v: R.Tensor((8,), "float32"), i: R.Tensor((2,), "int64")):
        with R.dataflow():
            c = R.nn.conv2d(x, w)
            s = R.nn.softmax(x, axis=-1)
            t = R.permute_dims(x, [0, 2, 3, 1])
            r = R.reshape(x, (6, 64))
            mm = R.matmul(x, m)
            b = R.add(x, v)
            bb = R.broadcast_to(v, (2, 8, 8))
            su = R.sum(x, axis=[2, 3])
            mp = R.nn.max_pool2d(x, pool_size=(2, 2))
            ln = R.nn.layer_norm(x, v, v, axes=[-1])
            cc = R.concat([x, x], axis=1)
            tk = R.take(m, i, axis=0)
            ex = R.expand_dims(v, axis=0)
            wh = R.where(R.greater(x, R.const(0.0, "float32")), x, R.const(1.0, "float32"))
            R.output(c, s, t, r, mm, b, bb, su, mp, ln, cc, tk, ex, wh)
        return (c, s, t, r, mm, b, bb, su, mp, ln, cc, tk, ex, wh)
"""


def test_kinds_of_legalized_operators():
    out = AnnotateTIROpPattern()(LegalizeOps()(relax_ref.parse(HEADER + LEGALIZED)))
    kinds = {gv.name_hint: f.attrs["op_pattern"] for gv, f in out.prim_funcs()}
    assert kinds["add"] == 0 and kinds["matmul"] == 4 and kinds["conv2d"] == 4
    assert kinds["softmax"] == 4 and kinds["sum"] == 3 and kinds["transpose"] == 2
    assert kinds["broadcast_to"] == 1 and kinds["take"] == 8 and kinds["max_pool2d"] == 4


@pytest.mark.tvm
def test_same_kinds_as_tvm_on_tvm_kernels():
    """Our analysis of TVM's own legalized kernels (read back with our parser) equals TVM's."""
    tvm = pytest.importorskip("tvm")
    from tvm import relax

    text = LEGALIZED + "\n" + "\n".join(textwrap.indent(textwrap.dedent(KERNELS[n][0]), "    ")
                                        for n in sorted(KERNELS))
    tmod = tvm.script.from_source(text)
    tleg = relax.transform.LegalizeOps()(tmod)
    ours = AnnotateTIROpPattern()(relax_ref.parse(tleg.script(show_meta=True)))
    theirs = relax.transform.AnnotateTIROpPattern()(tleg)
    want = {gv.name_hint: int(f.attrs["op_pattern"]) for gv, f in theirs.functions.items()
            if isinstance(f, tvm.tirx.PrimFunc)}
    got = {gv.name_hint: ours[gv.name_hint].attrs["op_pattern"] for gv, _ in ours.prim_funcs()}
    for name, tvm_kind in DIVERGES_FROM_TVM.items():
        assert want[name] == int(tvm_kind), f"TVM changed its kind of {name}: update DIVERGES_FROM_TVM"
        assert got[name] == int(KERNELS[name][1])
        del want[name], got[name]
    assert got == want
    assert len(got) >= 25
