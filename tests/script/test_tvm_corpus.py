"""A corpus of modules produced by the installed TVM itself, 0.25 or 0.27 (spec rule TEXT.RT.2).

About thirty small graph programs are written here in TVM's own TVMScript and run through TVM's
``LegalizeOps`` and ``AnnotateTIROpPattern`` + ``FuseOps`` + ``FuseTIR``; the source, legalized and
fused modules (at least 50) are then checked both ways:

(a) relax-ref reads ``tvm_mod.script(show_meta=True)``, prints it in the installed TVM's dialect, and TVM's
    ``tvm.script.from_source`` reads that text into a module that ``tvm_ffi.structural_equal`` finds
    equal to the original;
(b) within relax-ref, ``parse(print(parse(tvm_text)))`` is structurally equal to
    ``parse(tvm_text)`` in every dialect that can write it.

A module is excused only when relax-ref's parser rejects it because an operator it uses is not in
the operator registry (yet); every other failure fails the test, and at least 50 modules must be
checked. Only TVM's parser and passes run (no builds).
"""

import functools
import re

import pytest

from relax_ref.analysis.structural_equal import first_difference
from relax_ref.errors import ParseError
from relax_ref.ops import registry
from relax_ref.script.dialect import DIALECTS, installed_tvm_dialect
from relax_ref.script.parser import parse
from relax_ref.script.printer import print_module
from program_texts import IF_ELSE

pytestmark = pytest.mark.tvm

MIN_MODULES = 50
PROGRAMS = {}


def prog(name):
    def deco(src):
        PROGRAMS[name] = src
        return src
    return deco


prog("mlp_static")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 16), "float32"), w1: R.Tensor((16, 32), "float32"), b1: R.Tensor((32,), "float32"),
             w2: R.Tensor((32, 8), "float32"), b2: R.Tensor((8,), "float32")) -> R.Tensor((4, 8), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            h = R.matmul(x, w1)
            h1 = R.add(h, b1)
            a = R.nn.relu(h1)
            o = R.matmul(a, w2)
            o1 = R.add(o, b2)
            R.output(o1)
        return o1
''')

prog("mlp_symbolic")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 16), "float32"), w1: R.Tensor((16, 32), "float32"), b1: R.Tensor((32,), "float32"),
             w2: R.Tensor((32, 8), "float32")) -> R.Tensor(("n", 8), "float32"):
        with R.dataflow():
            h = R.matmul(x, w1)
            h1 = R.add(h, b1)
            a = R.nn.gelu(h1)
            o = R.matmul(a, w2)
            R.output(o)
        return o
''')

prog("softmax")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8, 10), "float32")) -> R.Tuple(R.Tensor((8, 10), "float32"), R.Tensor((8, 10), "float32")):
        with R.dataflow():
            s = R.nn.softmax(x, axis=-1)
            l = R.nn.log_softmax(x, axis=1)
            t = (s, l)
            R.output(t)
        return t
''')

prog("softmax_symbolic")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("b", "s"), "float32")) -> R.Tensor(("b", "s"), "float32"):
        with R.dataflow():
            m = R.max(x, axis=[1], keepdims=True)
            d = R.subtract(x, m)
            e = R.exp(d)
            z = R.sum(e, axis=[1], keepdims=True)
            y = R.divide(e, z)
            R.output(y)
        return y
''')

prog("layer_norm")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8, 16), "float32"), g: R.Tensor((16,), "float32"), b: R.Tensor((16,), "float32")) -> R.Tensor((2, 8, 16), "float32"):
        with R.dataflow():
            y = R.nn.layer_norm(x, g, b, axes=[-1], epsilon=1e-5)
            z = R.multiply(y, y)
            R.output(z)
        return z
''')

prog("rms_norm")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 16), "float32"), w: R.Tensor((16,), "float32")) -> R.Tensor(("n", 16), "float32"):
        with R.dataflow():
            y = R.nn.rms_norm(x, w, axes=[-1])
            R.output(y)
        return y
''')

prog("conv_relu_pool")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 16, 16), "float32"), w: R.Tensor((8, 3, 3, 3), "float32")) -> R.Tensor((1, 8, 7, 7), "float32"):
        with R.dataflow():
            c = R.nn.conv2d(x, w, strides=[1, 1], padding=[0, 0, 0, 0])
            r = R.nn.relu(c)
            p = R.nn.max_pool2d(r, pool_size=[2, 2], strides=[2, 2])
            R.output(p)
        return p
''')

prog("conv_bias_avgpool")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4, 8, 8), "float32"), w: R.Tensor((4, 4, 3, 3), "float32"), b: R.Tensor((1, 4, 1, 1), "float32")) -> R.Tensor((2, 4, 4, 4), "float32"):
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
            cb = R.add(c, b)
            s = R.nn.silu(cb)
            p = R.nn.avg_pool2d(s, pool_size=[2, 2], strides=[2, 2])
            R.output(p)
        return p
''')

prog("attention")('''
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((2, 4, 8), "float32"), k: R.Tensor((2, 4, 8), "float32"), v: R.Tensor((2, 4, 8), "float32")) -> R.Tensor((2, 4, 8), "float32"):
        with R.dataflow():
            kt = R.permute_dims(k, axes=[0, 2, 1])
            s = R.matmul(q, kt)
            sc = R.multiply(s, R.const(0.35355339, "float32"))
            p = R.nn.softmax(sc, axis=-1)
            o = R.matmul(p, v)
            R.output(o)
        return o
''')

prog("attention_symbolic")('''
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor(("b", "s", 8), "float32"), k: R.Tensor(("b", "t", 8), "float32"), v: R.Tensor(("b", "t", 8), "float32")) -> R.Tensor(("b", "s", 8), "float32"):
        with R.dataflow():
            kt = R.permute_dims(k, axes=[0, 2, 1])
            s = R.matmul(q, kt)
            p = R.nn.softmax(s, axis=-1)
            o = R.matmul(p, v)
            R.output(o)
        return o
''')

prog("take_slice")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((10, 6), "float32"), idx: R.Tensor((3,), "int64")) -> R.Tuple(R.Tensor((3, 6), "float32"), R.Tensor((4, 3), "float32")):
        with R.dataflow():
            t = R.take(x, idx, axis=0)
            s = R.strided_slice(x, axes=[0, 1], begin=[1, 0], end=[9, 6], strides=[2, 2])
            r = (t, s)
            R.output(r)
        return r
''')

prog("split_concat")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 12), "float32")) -> R.Tensor((8, 6), "float32"):
        with R.dataflow():
            parts = R.split(x, 2, axis=1)
            a = parts[0]
            b = parts[1]
            c = R.concat((a, b), axis=0)
            R.output(c)
        return c
''')

prog("reductions")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4, 5), "float32")) -> R.Tuple(R.Tensor((3, 5), "float32"), R.Tensor((3, 1, 1), "float32"), R.Tensor((4,), "float32"), R.Tensor((), "float32")):
        with R.dataflow():
            a = R.sum(x, axis=[1])
            b = R.mean(x, axis=[1, 2], keepdims=True)
            c = R.max(x, axis=[0, 2])
            d = R.min(x)
            t = (a, b, c, d)
            R.output(t)
        return t
''')

prog("argmax_variance")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 7), "float32")) -> R.Tuple(R.Tensor(("n",), "int64"), R.Tensor((7,), "float32")):
        with R.dataflow():
            a = R.argmax(x, axis=1)
            v = R.variance(x, axis=[0])
            t = (a, v)
            R.output(t)
        return t
''')

prog("reshape_flatten")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")) -> R.Tensor((24,), "float32"):
        with R.dataflow():
            r = R.reshape(x, R.shape([6, 4]))
            t = R.permute_dims(r, axes=[1, 0])
            f = R.flatten(t)
            R.output(f)
        return f
''')

prog("reshape_symbolic")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n * 4",), "float32"):
        n = T.int64()
        with R.dataflow():
            r = R.reshape(x, R.shape([n * 4]))
            e = R.exp(r)
            R.output(e)
        return e
''')

prog("expand_squeeze")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), "float32")) -> R.Tensor((3, 4), "float32"):
        with R.dataflow():
            e = R.expand_dims(x, axis=[0, 2])
            s = R.squeeze(e, axis=[0, 2])
            R.output(s)
        return s
''')

prog("elementwise")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((5,), "float32"), y: R.Tensor((5,), "float32")) -> R.Tensor((5,), "float32"):
        with R.dataflow():
            a = R.exp(x)
            b = R.log(R.add(a, R.const(1.0, "float32")))
            c = R.sqrt(R.abs(y))
            d = R.tanh(c)
            e = R.sigmoid(d)
            m = R.less(x, y)
            w = R.where(m, b, e)
            R.output(w)
        return w
''')

prog("broadcast_ops")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4), "float32"), y: R.Tensor((3, 1), "float32")) -> R.Tensor((3, 4), "float32"):
        with R.dataflow():
            b = R.broadcast_to(x, R.shape([3, 4]))
            m = R.multiply(b, y)
            mx = R.maximum(m, R.const(0.5, "float32"))
            mn = R.minimum(mx, y)
            c = R.clip(mn, R.prim_value(T.float64(-1.0)), R.prim_value(T.float64(2.0)))
            R.output(c)
        return c
''')

prog("int_ops")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6,), "int32"), y: R.Tensor((6,), "int32")) -> R.Tuple(R.Tensor((6,), "int32"), R.Tensor((6,), "int32"), R.Tensor((6,), "float32")):
        with R.dataflow():
            a = R.floor_divide(x, y)
            b = R.floor_mod(x, y)
            c = R.divide(x, y)
            f = R.astype(c, "float32")
            t = (a, b, f)
            R.output(t)
        return t
''')

prog("batch_matmul_symbolic")('''
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("b", "m", 8), "float32"), w: R.Tensor(("b", 8, "k"), "float32")) -> R.Tensor(("b", "m", "k"), "float32"):
        with R.dataflow():
            c = R.matmul(a, w)
            r = R.nn.relu(c)
            R.output(r)
        return r
''')

prog("creation")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            z = R.zeros(R.shape([2, 3]), "float32")
            o = R.ones_like(x)
            f = R.full(R.shape([2, 3]), R.const(2.5, "float32"), "float32")
            s = R.add(R.add(z, o), f)
            y = R.multiply(s, x)
            R.output(y)
        return y
''')

prog("if_control")('''
''' + IF_ELSE + '''        z = R.nn.relu(y)
        return z
''')

prog("tuple_get")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 4), "float32")) -> R.Tensor((2, 4), "float32"):
        with R.dataflow():
            p = R.split(x, indices_or_sections=[1, 3], axis=0)
            a = p[0]
            b = p[2]
            m = R.add(R.concat((a, b), axis=0), R.const(1.0, "float32"))
            R.output(m)
        return m
''')

prog("match_cast")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32", ndim=2)) -> R.Tensor("float32", ndim=2):
        n = T.int64()
        m = T.int64()
        y = R.match_cast(x, R.Tensor((n, m), "float32"))
        with R.dataflow():
            z = R.add(y, y)
            t = R.permute_dims(z)
            R.output(t)
        return t
''')

prog("strided_slice_symbolic")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 6), "float32")) -> R.Tensor(("n", 3), "float32"):
        with R.dataflow():
            s = R.strided_slice(x, axes=[1], begin=[0], end=[6], strides=[2])
            t = R.tanh(s)
            R.output(t)
        return t
''')

prog("pad_conv1d")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 10), "float32"), w: R.Tensor((4, 2, 3), "float32")) -> R.Tensor((1, 4, 10), "float32"):
        with R.dataflow():
            p = R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 1])
            c = R.nn.conv1d(p, w)
            R.output(c)
        return c
''')

prog("embedding")('''
@I.ir_module
class Module:
    @R.function
    def main(ids: R.Tensor(("s",), "int64"), table: R.Tensor((100, 16), "float32"), w: R.Tensor((16, 16), "float32")) -> R.Tensor(("s", 16), "float32"):
        with R.dataflow():
            e = R.take(table, ids, axis=0)
            h = R.matmul(e, w)
            r = R.nn.relu(h)
            R.output(r)
        return r
''')

prog("multi_function")('''
@I.ir_module
class Module:
    @R.function(private=True)
    def helper(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        with R.dataflow():
            y = R.multiply(x, x)
            z = R.add(y, x)
            R.output(z)
        return z

    @R.function
    def main(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        cls = Module
        a = cls.helper(x)
        with R.dataflow():
            b = R.exp(a)
            R.output(b)
        return b
''')

prog("cumulative_ops")('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 5), "float32")) -> R.Tensor((4, 5), "float32"):
        with R.dataflow():
            t = R.tril(x, 1)
            u = R.triu(x, -1)
            s = R.add(t, u)
            n = R.negative(s)
            f = R.floor(n)
            R.output(f)
        return f
''')


@functools.lru_cache(maxsize=None)
def corpus():
    """name -> TVM IRModule for every program and its legalized / fused forms."""
    tvm = pytest.importorskip("tvm")
    from tvm import relax

    out = {}
    for name, src in PROGRAMS.items():
        mod = tvm.script.from_source(src)
        out[name] = mod
        legal = relax.transform.LegalizeOps()(mod)
        out[name + "/legalized"] = legal
        fused = relax.transform.AnnotateTIROpPattern()(legal)
        fused = relax.transform.FuseTIR()(relax.transform.FuseOps()(fused))
        out[name + "/fused"] = fused
    return out


_UNKNOWN_OP = re.compile(r"unknown Relax operator '([^']+)'")


def _excused(err: ParseError) -> bool:
    """The parser rejected an operator that is not (yet) registered."""
    m = _UNKNOWN_OP.search(str(err))
    return m is not None and registry.lookup_script(m.group(1)) is None


@functools.lru_cache(maxsize=None)
def parsed():
    """name -> (tvm module, tvm text, relax-ref module) for the modules relax-ref reads; plus the
    names excused (unregistered operators)."""
    ok, excused, failures = {}, [], []
    for name, mod in corpus().items():
        text = mod.script(show_meta=True)
        try:
            ok[name] = (mod, text, parse(text))
        except ParseError as e:
            if _excused(e):
                excused.append(name)
            else:
                failures.append(f"{name}: {e}")
    return ok, excused, failures


def _check_count(ok, failures):
    assert not failures, "relax-ref could not read TVM's text:\n" + "\n".join(failures)
    assert len(ok) >= MIN_MODULES, f"only {len(ok)} corpus modules could be checked (need {MIN_MODULES})"


def test_corpus_size():
    assert len(PROGRAMS) >= 25
    assert len(corpus()) >= MIN_MODULES
    ok, _, failures = parsed()
    _check_count(ok, failures)


def test_tvm_reads_our_print_back_to_an_equal_module():
    """(a) TVM text -> relax-ref -> tvm-spelling text -> TVM: structurally equal to the original."""
    tvm = pytest.importorskip("tvm")
    tvm_ffi = pytest.importorskip("tvm_ffi")
    ok, _, failures = parsed()
    _check_count(ok, failures)
    bad = []
    for name, (tvm_mod, _, ours) in ok.items():
        text = print_module(ours, dialect=installed_tvm_dialect(), show_meta=True)
        try:
            back = tvm.script.from_source(text)
        except Exception as e:  # noqa: BLE001 -- report TVM's diagnostic for any module
            bad.append(f"{name}: TVM rejected our text: {str(e).splitlines()[0]}")
            continue
        if not tvm_ffi.structural_equal(back, tvm_mod):
            bad.append(f"{name}: not structurally equal in TVM")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_relax_ref_roundtrip_of_tvm_modules(dialect):
    """(b) parse(print(parse(tvm_text))) == parse(tvm_text) within relax-ref, in every dialect that can
    write the module (tvm-0.27 has no call_tir(..., tir_vars=...), which TVM 0.25's legalization emits
    for symbolic shapes: it writes the equivalent module, TEXT.DIALECT.5)."""
    ok, _, failures = parsed()
    _check_count(ok, failures)
    bad = []
    for name, (_, _, ours) in ok.items():
        text = print_module(ours, dialect=dialect)
        if dialect == "tvm-0.27" and "tir_vars=" in print_module(ours, dialect="tvm-0.25"):
            parse(text)  # the equivalent module with the scalars in call_tir's argument tuple
            continue
        diff = first_difference(ours, parse(text))
        if diff:
            bad.append(f"{name}: {diff}")
    assert not bad, "\n".join(bad)
