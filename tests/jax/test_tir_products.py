"""PRIM.FLOAT.1 on the TensorIR path without needless barriers (``relax_jax.tir.products``): a float32
product that only factors or a zero-initialized sum reduction read is lowered as the plain product
(XLA then fuses it into its consumer, RMSNorm's ``x * x`` into the sum); every other product keeps the
barrier. The inputs make a contraction visible: ``(1 + 2**-12)**2`` rounds to ``1 + 2**-11`` and
``-(1 + 2**-11)`` cancels it exactly, in any association order of a sum, so a contracted product
leaves ``2**-24`` where the reference's result is 0."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_jax.float_rules import STRICT_OPTIONS
from relax_jax.tir.products import plain_stores
from tir_prims import HEADER

E = np.float32(1 + 2.0 ** -12)             # E * E is not a float32: rounded to 1 + 2**-11
NEG = np.float32(-(1 + 2.0 ** -11))         # exactly the negated rounded product

SRC = HEADER + '''
    @T.prim_func
    def sumsq(a: T.Buffer((T.int64(6), T.int64(64)), "float32"), b: T.Buffer((T.int64(6), T.int64(64)), "float32"),
              out: T.Buffer((T.int64(6),), "float32")):
        prod = T.alloc_buffer((T.int64(6), T.int64(64)))
        for i, k in T.grid(T.int64(6), T.int64(64)):
            with T.block("prod"):
                vi, vk = T.axis.remap("SS", [i, k])
                prod[vi, vk] = a[vi, vk] * b[vi, vk]
        for i, k in T.grid(T.int64(6), T.int64(64)):
            with T.block("red"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    out[vi] = T.float32(0)
                out[vi] = out[vi] + prod[vi, vk]

    @T.prim_func
    def biased(a: T.Buffer((T.int64(6), T.int64(64)), "float32"), b: T.Buffer((T.int64(6), T.int64(64)), "float32"),
               out: T.Buffer((T.int64(6),), "float32")):
        prod = T.alloc_buffer((T.int64(6), T.int64(64)))
        for i, k in T.grid(T.int64(6), T.int64(64)):
            with T.block("prod"):
                vi, vk = T.axis.remap("SS", [i, k])
                prod[vi, vk] = a[vi, vk] * b[vi, vk]
        for i, k in T.grid(T.int64(6), T.int64(64)):
            with T.block("red"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    out[vi] = T.float32(-1.00048828125)
                out[vi] = out[vi] + prod[vi, vk]

    @T.prim_func
    def added(a: T.Buffer((T.int64(64),), "float32"), b: T.Buffer((T.int64(64),), "float32"),
              c: T.Buffer((T.int64(64),), "float32"), out: T.Buffer((T.int64(64),), "float32")):
        prod = T.alloc_buffer((T.int64(64),))
        for i in range(T.int64(64)):
            with T.block("prod"):
                vi = T.axis.remap("S", [i])
                prod[vi] = a[vi] * b[vi]
        for i in range(T.int64(64)):
            with T.block("add"):
                vi = T.axis.remap("S", [i])
                out[vi] = prod[vi] + c[vi]

    @T.prim_func
    def scaled(a: T.Buffer((T.int64(64),), "float32"), b: T.Buffer((T.int64(64),), "float32"),
               c: T.Buffer((T.int64(64),), "float32"), out: T.Buffer((T.int64(64),), "float32")):
        prod = T.alloc_buffer((T.int64(64),))
        for i in range(T.int64(64)):
            with T.block("prod"):
                vi = T.axis.remap("S", [i])
                prod[vi] = a[vi] * b[vi]
        for i in range(T.int64(64)):
            with T.block("fma"):
                vi = T.axis.remap("S", [i])
                out[vi] = prod[vi] * T.float32(2) + c[vi]

    @T.prim_func
    def gelu(x: T.Buffer((T.int64(4096),), "float32"), out: T.Buffer((T.int64(4096),), "float32")):
        t1 = T.alloc_buffer((T.int64(4096),))
        e = T.alloc_buffer((T.int64(4096),))
        t2 = T.alloc_buffer((T.int64(4096),))
        t3 = T.alloc_buffer((T.int64(4096),))
        for i in range(T.int64(4096)):
            with T.block("t1"):
                vi = T.axis.remap("S", [i])
                t1[vi] = x[vi] * T.float32(0.70710678118654757)
        for i in range(T.int64(4096)):
            with T.block("e"):
                vi = T.axis.remap("S", [i])
                e[vi] = T.erf(t1[vi])
        for i in range(T.int64(4096)):
            with T.block("t2"):
                vi = T.axis.remap("S", [i])
                t2[vi] = e[vi] * T.float32(0.5)
        for i in range(T.int64(4096)):
            with T.block("t3"):
                vi = T.axis.remap("S", [i])
                t3[vi] = T.float32(0.5) + t2[vi]
        for i in range(T.int64(4096)):
            with T.block("out"):
                vi = T.axis.remap("S", [i])
                out[vi] = x[vi] * t3[vi]

    @T.prim_func
    def not_exact(x: T.Buffer((T.int64(64),), "float32"), out: T.Buffer((T.int64(64),), "float32")):
        e = T.alloc_buffer((T.int64(64),))
        f = T.alloc_buffer((T.int64(64),))
        t2 = T.alloc_buffer((T.int64(64),))
        t3 = T.alloc_buffer((T.int64(64),))
        t4 = T.alloc_buffer((T.int64(64),))
        for i in range(T.int64(64)):
            with T.block("e"):
                vi = T.axis.remap("S", [i])
                e[vi] = T.tanh(x[vi])
                f[vi] = T.exp(x[vi])
        for i in range(T.int64(64)):
            with T.block("t"):
                vi = T.axis.remap("S", [i])
                t2[vi] = e[vi] * T.float32(0.3)
                t3[vi] = e[vi] * T.float32(0.5)
                t4[vi] = f[vi] * T.float32(0.5)
        for i in range(T.int64(64)):
            with T.block("out"):
                vi = T.axis.remap("S", [i])
                out[vi] = (T.float32(0.5) + t2[vi]) + (T.float32(1e-35) + t3[vi]) + (T.float32(0.5) + t4[vi])

    @R.function
    def f_gelu(x: R.Tensor((4096,), "float32")):
        cls = Module
        t = R.call_tir(cls.gelu, (x,), out_sinfo=R.Tensor((4096,), "float32"))
        return (t, R.nn.gelu(x))

    @T.prim_func
    def square(a: T.Buffer((T.int64(64),), "float32"), b: T.Buffer((T.int64(64),), "float32"),
               out: T.Buffer((T.int64(64),), "float32")):
        for i in range(T.int64(64)):
            with T.block("sq"):
                vi = T.axis.remap("S", [i])
                out[vi] = a[vi] * b[vi]

    @T.prim_func
    def times(p: T.Buffer((T.int64(64),), "float32"), c: T.Buffer((T.int64(64),), "float32"),
              out: T.Buffer((T.int64(64),), "float32")):
        for i in range(T.int64(64)):
            with T.block("t"):
                vi = T.axis.remap("S", [i])
                out[vi] = p[vi] * c[vi]

    @T.prim_func
    def plus(p: T.Buffer((T.int64(64),), "float32"), c: T.Buffer((T.int64(64),), "float32"),
             out: T.Buffer((T.int64(64),), "float32")):
        for i in range(T.int64(64)):
            with T.block("t"):
                vi = T.axis.remap("S", [i])
                out[vi] = p[vi] + c[vi]

    @R.function
    def f_chain_factor(a: R.Tensor((64,), "float32"), b: R.Tensor((64,), "float32"), c: R.Tensor((64,), "float32")):
        cls = Module
        with R.dataflow():
            p = R.call_tir(cls.square, (a, b), out_sinfo=R.Tensor((64,), "float32"))
            y = R.call_tir(cls.times, (p, c), out_sinfo=R.Tensor((64,), "float32"))
            R.output(y)
        return y

    @R.function
    def f_chain_add(a: R.Tensor((64,), "float32"), b: R.Tensor((64,), "float32"), c: R.Tensor((64,), "float32")):
        cls = Module
        with R.dataflow():
            p = R.call_tir(cls.square, (a, b), out_sinfo=R.Tensor((64,), "float32"))
            y = R.call_tir(cls.times, (p, c), out_sinfo=R.Tensor((64,), "float32"))
            z = R.call_tir(cls.plus, (p, c), out_sinfo=R.Tensor((64,), "float32"))
            R.output(y, z)
        return (y, z)

    @R.function
    def f_sumsq(a: R.Tensor((6, 64), "float32"), b: R.Tensor((6, 64), "float32")) -> R.Tensor((6,), "float32"):
        cls = Module
        return R.call_tir(cls.sumsq, (a, b), out_sinfo=R.Tensor((6,), "float32"))

    @R.function
    def f_biased(a: R.Tensor((6, 64), "float32"), b: R.Tensor((6, 64), "float32")) -> R.Tensor((6,), "float32"):
        cls = Module
        return R.call_tir(cls.biased, (a, b), out_sinfo=R.Tensor((6,), "float32"))

    @R.function
    def f_added(a: R.Tensor((64,), "float32"), b: R.Tensor((64,), "float32"),
                c: R.Tensor((64,), "float32")) -> R.Tensor((64,), "float32"):
        cls = Module
        return R.call_tir(cls.added, (a, b, c), out_sinfo=R.Tensor((64,), "float32"))

    @R.function
    def f_scaled(a: R.Tensor((64,), "float32"), b: R.Tensor((64,), "float32"),
                 c: R.Tensor((64,), "float32")) -> R.Tensor((64,), "float32"):
        cls = Module
        return R.call_tir(cls.scaled, (a, b, c), out_sinfo=R.Tensor((64,), "float32"))
'''


def _pairs(rows, k, seed=0):
    """Rows of ``a * b`` products that are zero but for ``NEG`` and ``E * E`` at random places."""
    rng = np.random.default_rng(seed)
    a = np.zeros((rows, k), np.float32)
    b = np.zeros((rows, k), np.float32)
    for r in range(rows):
        i, j = rng.choice(k, 2, replace=False)
        a[r, i], b[r, i] = NEG, 1
        a[r, j], b[r, j] = E, E
    return a, b


def _barriers(exe, entry):
    plan = exe._plans[entry]
    return list(plan.exact_cache.values() or plan.cache.values())[-1].fn.as_text().count(" reduce-precision(")


def _names(mod, fname):
    from relax_ref.ir.functor import post_order_visit_stmt

    func = mod[fname]
    plain = plain_stores(func)
    out = []
    post_order_visit_stmt(func.body, lambda s: out.append(s.buffer.name) if id(s) in plain else None)
    return out


def test_which_stores_are_plain():
    mod = relax_ref.parse(SRC)
    assert _names(mod, "sumsq") == ["prod"]
    assert _names(mod, "biased") == []              # the sum starts from a non-zero init
    assert _names(mod, "added") == []               # an elementwise add consumes the product
    assert _names(mod, "scaled") == ["prod"]        # a factor: the product of the next nest keeps its barrier
    assert _names(mod, "gelu") == ["t1", "t2"]      # erf's argument; an exact scaling of erf added to 0.5
    assert _names(mod, "not_exact") == []           # 0.3 is no power of two, 1e-35 too small, exp unbounded


def test_tir_gelu_equals_the_graph_gelu_bit_for_bit():
    """The same nodes in the same order: the TensorIR kernel without its inner barriers gives the bits of
    ``R.nn.gelu``, which equal those of a GELU with a barrier on every product
    (``test_gelu_products.py``)."""
    mod = relax_ref.parse(SRC)
    x = np.concatenate([np.linspace(-8, 8, 4000), [0.0, -0.0, 1e-30, -1e-30, 1e-40, 60, -60, 1e30] + [0.5] * 88])
    t, g = relax_jax.compile(mod)("f_gelu", x.astype(np.float32))
    assert np.asarray(t).view(np.uint32).tolist() == np.asarray(g).view(np.uint32).tolist()


@pytest.mark.parametrize("entry,barriers", [("f_sumsq", 0), ("f_biased", 1), ("f_added", 1), ("f_scaled", 1)])
def test_values_equal_the_reference_bit_for_bit(entry, barriers):
    """The rounded products cancel exactly (any order of the sum): the reference gives 0 (``biased``:
    its init plus the products, exact too), and so must relax_jax, with or without a barrier."""
    mod = relax_ref.parse(SRC)
    exe = relax_jax.compile(mod)
    if entry in ("f_sumsq", "f_biased"):
        args = _pairs(6, 64)
    else:
        args = (np.full(64, E), np.full(64, E), np.full(64, NEG * np.float32(2 if entry == "f_scaled" else 1)))
    want = relax_ref.evaluate(mod, entry, *args)
    got = np.asarray(exe(entry, *args))
    assert got.tobytes() == np.asarray(want).tobytes()
    assert _barriers(exe, entry) == barriers


def test_the_fast_rules_show_the_contraction_the_barrier_prevents():
    mod = relax_ref.parse(SRC)
    args = (np.full(64, E), np.full(64, E), np.full(64, NEG))
    got = np.asarray(relax_jax.compile(mod, float_rules="fast")("f_added", *args))
    assert np.all(got == np.float32(2.0 ** -24))


@pytest.mark.parametrize("shape,axis", [((512, 512), 1), ((512, 512), 0), ((64, 37), 1), ((4, 4096), 1)])
@pytest.mark.parametrize("options", [STRICT_OPTIONS, {}], ids=["strict", "default"])
def test_xla_does_not_contract_a_product_into_a_sum(shape, axis, options):
    """What :mod:`relax_jax.tir.products` relies on, measured: XLA's CPU reduction (its own emitter and
    the YNN reduce fusion) adds each rounded product to the accumulator, it never fuses the multiply
    into an fma with it -- whereas it does for an elementwise multiply-add."""
    a, b = _pairs(shape[0] if axis == 1 else shape[1], shape[1] if axis == 1 else shape[0], seed=7)
    if axis == 0:
        a, b = a.T.copy(), b.T.copy()
    f = jax.jit(lambda a, b: jnp.sum(a * b, axis=axis)).lower(a, b).compile(compiler_options=options)
    assert not np.any(np.asarray(f(a, b)))
    g = jax.jit(lambda a, c: a * a + c).lower(np.full(8, E), np.full(8, NEG)).compile(compiler_options=options)
    assert np.all(np.asarray(g(np.full(8, E), np.full(8, NEG))) == np.float32(2.0 ** -24))


def test_a_result_read_only_as_a_factor_by_the_next_kernel_needs_no_barrier():
    """``factor_outputs``: ``square``'s product goes only to ``times`` as a factor (no barrier in
    either kernel but ``times``' own result, which is returned); once ``plus`` also adds it, the
    barrier is back and the sum is the reference's bit for bit (0, where a contraction leaves 2**-24)."""
    from relax_jax.tir.products import factor_outputs, factor_params

    mod = relax_ref.parse(SRC)
    assert factor_params(mod["times"]) == {0, 1} and factor_params(mod["plus"]) == set()
    assert len(factor_outputs(mod)) == 1
    exe = relax_jax.compile(mod)
    args = (np.full(64, E), np.full(64, E), np.full(64, NEG))
    for entry, barriers in (("f_chain_factor", 1), ("f_chain_add", 2)):     # (XLA may duplicate one)
        got = exe(entry, *args)
        want = relax_ref.evaluate(mod, entry, *args)
        for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert np.asarray(g).tobytes() == np.asarray(w).tobytes()
        assert _barriers(exe, entry) >= barriers and (_barriers(exe, entry) == 1) == (barriers == 1)
