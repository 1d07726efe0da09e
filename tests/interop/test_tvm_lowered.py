"""What TVM's lowering passes emit reads and runs here [CALL.PACKED.6] [CALL.PACKED.8]
[CALL.SHAPEHEAP.1-3] [TEXT.TVM.1].

Each program below is printed in the installed TVM's dialect (0.25 or 0.27), read by TVM and goes
through the Relax-to-Relax passes of TVM's default build pipeline, in order (some first through the
backend's sort dispatch or TVM's fusion passes); the module after each pass is read through TVM's
printer and run on the reference interpreter and on the JAX executor. The results are checked
against numpy formulas, the printed lines against the text ``R.print`` gives, and after
``VMShapeLower`` a bad argument must fail with the same error kind as before lowering.
"""

import io

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import DTypeMismatchError, NDimMismatchError, ShapeMismatchError
from relax_ref.script.dialect import installed_tvm_dialect

tvm = pytest.importorskip("tvm")
pytestmark = pytest.mark.tvm

from tvm import relax  # noqa: E402

#: the Relax-to-Relax passes of TVM's default build pipeline, in its order
PASSES = ("LegalizeOps", "RewriteDataflowReshape", "ToNonDataflow", "RemovePurityChecking", "CallTIRRewrite",
          "StaticPlanBlockMemory", "LowerAllocTensor", "KillAfterLastUse", "LowerRuntimeBuiltin",
          "ComputePrimValue", "VMShapeLower", "AttachGlobalSymbol")

HEADER = "@I.ir_module\nclass Module:\n"

PROGRAMS = {
    "print": '''
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        R.print(x, format="x={}")
        y = R.add(x, x)
        R.print(y)
        return y
''',
    "assert": '''
    @R.function(pure=False)
    def main(c: R.Tensor((), dtype="bool"), y: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        R.assert_op(c, y, format="y={}")
        return y
''',
    "shape_tensor": '''
    @R.function
    def main(x: R.Tensor(("n", "m"), dtype="float32"), t: R.Tensor((2,), dtype="int64")):
        s = R.shape_of(x)
        a = R.shape_to_tensor(s)
        b = R.tensor_to_shape(t)
        c = R.add(a, t)
        return (a, b, c)
''',
    "unique_nonzero": '''
    @R.function
    def main(x: R.Tensor((6,), dtype="int32")):
        u = R.unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False)
        z = R.nonzero(x)
        return (u, z)
''',
    "symbolic": '''
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor(("n * 4",), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            a = R.add(x, y)
            b = R.reshape(a, R.shape([n * 4]))
            c = R.nn.relu(b)
            R.output(c)
        return c
''',
    "if_else": '''
    @R.function
    def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        if c:
            y = R.multiply(x, x)
        else:
            y = R.negative(x)
        return y
''',
    "prim_param": '''
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), k: R.Prim("int64")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        y = R.add(x, R.const(1.0, "float32"))
        return y
''',
    "tuple_match_cast": '''
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2), t: R.Tuple(R.Tensor((2,), dtype="float32"), R.Prim("int64"))):
        n = T.int64()
        m = T.int64()
        y = R.match_cast(x, R.Tensor((n, m), dtype="float32"))
        z = R.sum(y, axis=[1])
        a = t[0]
        return (z, a)
''',
    "dense": '''
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), w: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        with R.dataflow():
            a = R.matmul(x, w)
            b = R.nn.softmax(a, axis=1)
            c = R.permute_dims(b)
            d = R.reshape(c, R.shape([8]))
            R.output(d)
        return d
''',
    "closure": '''
    @R.function
    def main(x: R.Tensor((2,), dtype="float32"), y: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        @R.function
        def inner(z: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
            w = R.subtract(z, x)
            return w
        r = inner(y)
        return r
''',
    "call_tir_tir_vars": '''
    @T.prim_func(private=True, s_tir=True)
    def shift(a: T.handle, b: T.handle, k: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            with T.sblock("b"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[vi] + T.Cast("float32", k)

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), s: R.Shape(["k"])) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        k = T.int64()
        cls = Module
        y = R.call_tir(cls.shift, (x,), out_sinfo=R.Tensor((n,), dtype="float32"), tir_vars=R.shape([k]))
        return y
''',
    "sort_scan": '''
    @R.function
    def main(x: R.Tensor((2, 5), dtype="float32")):
        a = R.sort(x, axis=1, descending=False)
        b = R.argsort(x, axis=1, descending=True, dtype="int32")
        c = R.topk(x, k=2, axis=1, ret_type="both", largest=True, dtype="int32")
        d = R.cumsum(x, axis=1)
        return (a, b, c, d)
''',
    "fused": '''
    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float32"), w: R.Tensor((8, 8), dtype="float32"), b: R.Tensor((8,), dtype="float32")):
        R.func_attr({"tir_var_upper_bound": {"n": 16}})
        with R.dataflow():
            a = R.matmul(x, w)
            c = R.add(a, b)
            d = R.nn.relu(c)
            e = R.mean(d, axis=[1], keepdims=True)
            f = R.subtract(d, e)
            R.output(f)
        return f
''',
}

#: passes run before the build passes: the backend dispatch of sorting, TVM's zero pipeline (fusion)
BEFORE = {
    "sort_scan": ("DispatchSortScan",),
    "fused": ("LegalizeOps", "AnnotateTIROpPattern", "FoldConstant", "FuseOps", "FuseTIR"),
}

RNG = np.random.default_rng(14)


def _f32(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _softmax(a):
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _runs():
    """name -> (arguments, expected result, expected printed text)."""
    x23, x34, x2, y2 = _f32(2, 3), _f32(3, 4), _f32(2), _f32(2)
    t = np.array([2, 7], np.int64)
    ints = np.array([3, 0, 3, 1, 0, 5], np.int32)
    xs, ys = _f32(3, 4), _f32(4)
    x3, x5 = _f32(3), _f32(5)
    xm = _f32(2, 3)
    x4, x25 = _f32(4), _f32(2, 5)
    desc = np.argsort(-x25, axis=1, kind="stable").astype(np.int32)
    xf, wf, bf = _f32(5, 8), _f32(8, 8), _f32(8)
    hf = np.maximum(xf.astype("float64") @ wf.astype("float64") + bf, 0)
    return {
        "call_tir_tir_vars": ([x4, (3,)], x4 + np.float32(3), ""),
        "sort_scan": ([x25], (np.sort(x25, axis=1), desc,
                              (np.take_along_axis(x25, desc[:, :2], axis=1), desc[:, :2]),
                              x25.astype("float64").cumsum(axis=1)), ""),
        "fused": ([xf, wf, bf], hf - hf.mean(axis=1, keepdims=True), ""),
        "print": ([x23], x23 + x23, f"x={x23}\n{x23 + x23}\n"),
        "assert": ([np.array(True), x2], x2, ""),
        "shape_tensor": ([x34, t], (np.array([3, 4], np.int64), (2, 7), np.array([3, 4]) + t), ""),
        "unique_nonzero": ([ints], (np.array([0, 1, 3, 5], np.int32), np.array([[0, 2, 3, 5]], np.int64)), ""),
        "symbolic": ([xs, ys], np.maximum((xs + ys).reshape(12), 0), ""),
        "if_else": ([np.array(False), x3], -x3, ""),
        "prim_param": ([x5, 7], x5 + np.float32(1), ""),
        "tuple_match_cast": ([xm, (x2, 4)], (xm.astype("float64").sum(axis=1), x2), ""),
        "dense": ([x23, x34], _softmax(x23.astype("float64") @ x34.astype("float64")).T.reshape(8), ""),
        "closure": ([x2, y2], y2 - x2, ""),
    }


RUNS = _runs()


def _pass(name):
    if name == "DispatchSortScan":
        return relax.backend.DispatchSortScan()
    return getattr(relax.transform, name)()


def _lowered(name):
    """[(pass name, tvm.IRModule after it)] for the program ``name``, given to TVM in its own dialect."""
    text = relax_ref.parse(HEADER + PROGRAMS[name]).script(dialect=installed_tvm_dialect())
    mod = relax.transform.LambdaLift()(tvm.script.from_source(text))
    out = []
    with tvm.target.Target("llvm"):
        for p in BEFORE.get(name, ()) + PASSES:
            mod = _pass(p)(mod)
            out.append((p, mod))
    return out


@pytest.fixture(scope="module")
def lowered():
    return {name: _lowered(name) for name in PROGRAMS}


def _close(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
        return
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got.astype("float64"), want, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


def _run(mod, impl, args):
    out = io.StringIO()
    if impl == "ref":
        result = relax_ref.Interpreter(mod, stdout=out)("main", *args)
    else:
        import relax_jax

        result = relax_jax.compile(mod, stdout=out)("main", *args)
    return result, out.getvalue()


def test_every_lowered_module_parses(lowered):
    """[TEXT.TVM.1] all 162 modules (13 programs after each pass) read back."""
    count = 0
    for name, stages in lowered.items():
        for p, mod in stages:
            relax_ref.parse(mod)
            count += 1
    assert count == len(PROGRAMS) * len(PASSES) + sum(map(len, BEFORE.values())) == 162


@pytest.mark.parametrize("impl", ["ref", "jax"])
@pytest.mark.parametrize("stage", ["LegalizeOps", "KillAfterLastUse", "LowerRuntimeBuiltin", "VMShapeLower"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_lowered_module_runs(lowered, name, stage, impl):
    """[CALL.PACKED.6] [CALL.PACKED.8] [CALL.SHAPEHEAP.1-3] the module after ``stage`` computes the
    program's result and prints its lines."""
    mod = relax_ref.parse(dict(lowered[name][len(BEFORE.get(name, ())):])[stage])
    args, want, printed = RUNS[name]
    got, text = _run(mod, impl, args)
    _close(got, want)
    assert text == printed


@pytest.mark.parametrize("impl", ["ref", "jax"])
@pytest.mark.parametrize("args,error", [
    ([_f32(3, 5), _f32(4)], ShapeMismatchError),
    ([_f32(12), _f32(4)], NDimMismatchError),
    ([np.zeros((3, 4), np.int32), _f32(4)], DTypeMismatchError),
])
def test_bad_arguments_fail_alike_before_and_after_vm_shape_lower(lowered, impl, args, error):
    """[CALL.SHAPEHEAP.3] [EVAL.CHECK.8] the checks VMShapeLower emits give the error kinds of the
    parameter checks they replace."""
    before = relax_ref.parse(HEADER + PROGRAMS["symbolic"])
    after = relax_ref.parse(dict(lowered["symbolic"])["VMShapeLower"])
    for mod in (before, after):
        with pytest.raises(error):
            _run(mod, impl, args)


def test_memory_view_runs_once_lowered():
    """[CALL.PACKED.6] ``R.memory.view`` (an operator relax-ref does not register yet) lowers to
    ``runtime.TVMTensorCreateView``, which runs here: after LowerRuntimeBuiltin and VMShapeLower."""
    text = HEADER + '''
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32")):
        v = R.memory.view(x, shape=R.shape([3]), dtype="float32", relative_byte_offset=R.prim_value(T.int64(8)))
        w = R.add(v, v)
        return w
'''
    mod = tvm.script.from_source(text)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    for p in ("LegalizeOps", "RemovePurityChecking", "LowerRuntimeBuiltin", "VMShapeLower"):
        mod = _pass(p)(mod)
        if p in ("LowerRuntimeBuiltin", "VMShapeLower"):
            for impl in ("ref", "jax"):
                got, _ = _run(relax_ref.parse(mod), impl, [x])
                np.testing.assert_array_equal(got, np.array([4.0, 6.0, 8.0], np.float32))
