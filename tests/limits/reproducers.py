"""The reproducers of the hardening campaign: hostile and absurd programs and inputs.

Each entry is a program text, an entry function and arguments; every one must end in a RelaxError
(RUNTIME.LIMIT.*, ERR.1) on the reference and on relax_jax, quickly and without a large allocation.
``tests/limits/test_reproducers.py`` runs them; ``python -m tests.limits.measure`` reports the time
and peak memory of each in a fresh process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

try:
    from program_texts import case_member, case_text
except ImportError:                         # imported as ``tests.limits.reproducers`` (``tests.limits.measure``)
    from tests.program_texts import case_member, case_text

HEAD = "from tvm.script import ir as I, relax as R, tirx as T\n\n\n@I.ir_module\nclass Module:\n"


def _module(body: str) -> str:
    return HEAD + body


def _main(params: str, body: str, ret: str = "") -> str:
    lines = "".join(f"        {line}\n" for line in body.strip().splitlines())
    arrow = f" -> {ret}" if ret else ""
    return _module(f"    @R.function\n    def main({params}){arrow}:\n{lines}")


def on_both(text: str, *args, by_limit: bool = False, **limits) -> list:
    """``main(*args)`` of the program ``text`` on the reference interpreter and on relax_jax (with
    ``limits``): for each, ``("value", array)`` or ``(the error's kind, None)``; with ``by_limit`` an
    exceeded limit reads as the limit's name."""
    import relax_jax
    import relax_ref
    from relax_ref.errors import LimitExceededError, RelaxError

    mod = relax_ref.parse(text)
    out = []
    for run in (lambda: relax_ref.Interpreter(mod, **limits)("main", *args),
                lambda: relax_jax.compile(mod, **limits)("main", *args)):
        try:
            out.append(("value", np.asarray(run())))
        except RelaxError as err:
            out.append((err.limit if by_limit and isinstance(err, LimitExceededError) else err.kind, None))
    return out


def recursion(base: str) -> str:
    """A module whose ``main(n)`` calls ``down(n)``, which recurses on ``n - 1`` until ``n <= 0`` and
    then binds ``r = base`` (the members' text, from ``down`` on; ``main`` as the case
    ``limits/recursion_that_never_ends`` writes it)."""
    return f'''    @R.function
    def down(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
        cls = Module
        c = R.less_equal(n, R.const(0, "int64"))
        if c:
            r = {base}
        else:
            m = R.subtract(n, R.const(1, "int64"))
            r = cls.down(m)
        return r

''' + case_member("limits", "recursion_that_never_ends", "main")


@dataclass(frozen=True)
class Repro:
    name: str
    text: Optional[object]                  # program text (or a non-text for parse reproducers)
    args: Callable[[], tuple] = lambda: ()
    entry: str = "main"
    stage: str = "run"                      # "parse": the error comes from parsing
    tags: tuple = field(default=())
    max_steps: Optional[int] = None         # a step budget other than the default (RUNTIME.LIMIT.4)


def _kernel_module(kernel: str, n: int = 4, dtype: str = "float32") -> str:
    """A module of the kernel ``k`` (its text) and a ``main`` that calls it on an ``(n,)`` tensor."""
    t = f'R.Tensor(({n},), "{dtype}")'
    return _module(kernel + f'''
    @R.function
    def main(x: {t}) -> {t}:
        cls = Module
        y = R.call_tir(cls.k, (x,), out_sinfo={t})
        return y
''')


def _shape(*dims):
    from relax_ref.values import ShapeValue

    return ShapeValue(tuple(dims))


def _f32(*shape):
    return np.ones(shape, "float32")


TIR_LOOP = _kernel_module('''    @T.prim_func
    def k(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4611686018427387904)):
            B[i % T.int64(4)] = A[i % T.int64(4)] + T.float32(1)
''')

TIR_FAR_READ = _kernel_module('''    @T.prim_func
    def k(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            B[i] = A[i + T.int64(9223372036854775800)]
''')

#: a while loop whose condition stays true, as the case ``limits/while_loop_that_never_ends`` writes it
TIR_WHILE = case_text("limits", "while_loop_that_never_ends")

TIR_STRIDES = _kernel_module('''    @T.prim_func
    def k(A: T.Buffer((T.int64(4),), "float32", strides=1), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            B[i] = A[i]
''')

TIR_CEILDIV = _kernel_module('''    @T.prim_func
    def k(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.ceildiv("a", T.int64(2))):
            B[i] = A[i]
''')

BIG = 2 ** 62


def open_recursion() -> str:
    return _module(recursion("n"))


REPRODUCERS = [
    # 1. sizes XLA aborts on
    Repro("broadcast_to_2p31_squared",
          _main('x: R.Tensor((1,), "float32")', "y = R.broadcast_to(x, R.shape([2147483648, 2147483648]))\nreturn y"),
          lambda: (_f32(1),), tags=("1",)),
    Repro("tir_loop_2p62", TIR_LOOP, lambda: (_f32(4),), tags=("1", "2")),
    Repro("tir_read_near_int64_max", TIR_FAR_READ, lambda: (_f32(4),), tags=("1",)),
    # 2. no loop limit
    Repro("tir_while_forever", TIR_WHILE, lambda: (np.ones((1,), "int32"),), tags=("2",), max_steps=10 ** 5),
    Repro("tir_while_forever_default_budget", TIR_WHILE, lambda: (np.ones((1,), "int32"),), tags=("2",)),
    # 3. memory runaway
    Repro("adaptive_avg_pool2d_1e30",
          _main('x: R.Tensor((1, 3, 2, 2), "float32")', "y = R.nn.adaptive_avg_pool2d(x, 1000000000000000000000000000000)\nreturn y"),
          lambda: (_f32(1, 3, 2, 2),), tags=("3",)),
    Repro("zeros_2p40",
          _main("", 'y = R.zeros(R.shape([1099511627776, 1024]), "float32")\nreturn y'), tags=("3",)),
    # 4. silent int64 wraparound
    Repro("ones_2p64_plus_3", _main("", 'y = R.ones(R.shape([18446744073709551619]), "float32")\nreturn y'),
          tags=("4",)),
    Repro("reshape_2p64_plus_6",
          _main('x: R.Tensor((6,), "float32")', "y = R.reshape(x, R.shape([18446744073709551622]))\nreturn y"),
          lambda: (_f32(6),), tags=("4",)),
    Repro("prim_int64_arg_2p64_minus_1",
          _main('n: R.Prim("int64")', "return n"), lambda: (2 ** 64 - 1,), tags=("4",)),
    Repro("host_shape_1e30",
          _main("s: R.Shape(ndim=1)", "return s"), lambda: (_shape(10 ** 30),), tags=("4",)),
    # 5. bucketing must not change legality
    Repro("bucketed_add_broadcast",
          _main('x: R.Tensor((2, "n"), "float32"), y: R.Tensor((4,), "float32")', "z = R.add(x, y)\nreturn z"),
          lambda: (_f32(2, 3), _f32(4)), tags=("5",)),
    Repro("bucketed_multiply_broadcast",
          _main('x: R.Tensor((2, "n"), "float32"), y: R.Tensor((4,), "float32")', "z = R.multiply(x, y)\nreturn z"),
          lambda: (_f32(2, 3), _f32(4)), tags=("5",)),
    Repro("bucketed_floor_mod_broadcast",
          _main('x: R.Tensor((2, "n"), "int32"), y: R.Tensor((4,), "int32")', "z = R.floor_mod(x, y)\nreturn z"),
          lambda: (np.ones((2, 3), "int32"), np.ones((4,), "int32")), tags=("5",)),
    # 7. exceptions that are not RelaxErrors
    Repro("buffer_strides_int", TIR_STRIDES, lambda: (_f32(4),), stage="parse", tags=("7",)),
    Repro("ceildiv_string", TIR_CEILDIV, lambda: (_f32(4),), stage="parse", tags=("7",)),
    Repro("layout_transform_non_tensor",
          _main('x: R.Shape([2, 3])', "y = R.layout_transform(x, index_map=T.index_map(lambda a, b: (b, a)))\nreturn y"),
          lambda: (_shape(2, 3),), stage="parse", tags=("7",)),
    Repro("parse_none", None, stage="parse", tags=("7",)),
    Repro("parse_bytes", b"from tvm.script import relax as R\n", stage="parse", tags=("7",)),
    Repro("conv2d_strides_0",
          _main('x: R.Tensor((1, 1, 4, 4), "float32"), w: R.Tensor((1, 1, 2, 2), "float32")',
                "y = R.nn.conv2d(x, w, strides=0)\nreturn y"),
          lambda: (_f32(1, 1, 4, 4), _f32(1, 1, 2, 2)), tags=("7",)),
    Repro("max_pool2d_stride_1e30",
          _main('x: R.Tensor((1, 1, 4, 4), "float32")',
                "y = R.nn.max_pool2d(x, pool_size=2, strides=1000000000000000000000000000000)\nreturn y"),
          lambda: (_f32(1, 1, 4, 4),), tags=("7",)),
    Repro("max_pool2d_padding_1e30",
          _main('x: R.Tensor((1, 1, 4, 4), "float32")',
                "y = R.nn.max_pool2d(x, pool_size=2, padding=1000000000000000000000000000000)\nreturn y"),
          lambda: (_f32(1, 1, 4, 4),), tags=("7",)),
    Repro("repeat_2p62",
          _main('x: R.Tensor((3,), "float32")', "y = R.repeat(x, 4611686018427387904, axis=0)\nreturn y"),
          lambda: (_f32(3),), tags=("7",)),
    Repro("hamming_window_string",
          _main("", 'y = R.hamming_window(7, True, "a", 0.46, "float32")\nreturn y'), tags=("7",)),
    Repro("matmul_python_float",
          _main("x: R.Tensor, y: R.Tensor", "z = R.matmul(x, y)\nreturn z"), lambda: (np.asarray(1.5), np.asarray(2.5)), tags=("7",)),
    Repro("prelu_python_float",
          _main("x: R.Tensor, a: R.Tensor", "z = R.nn.prelu(x, a)\nreturn z"), lambda: (np.asarray(1.5), np.asarray(2.5)), tags=("7",)),
    Repro("scatter_python_float",
          _main("x: R.Tensor, i: R.Tensor, u: R.Tensor", "z = R.scatter_elements(x, i, u)\nreturn z"),
          lambda: (np.asarray(1.5), np.asarray(0), np.asarray(2.5)), tags=("7",)),
    Repro("split_python_float",
          _main("x: R.Tensor", "z = R.split(x, 2)\nreturn z"), lambda: (np.asarray(1.5),), tags=("7",)),
    Repro("take_python_float",
          _main("x: R.Tensor, i: R.Tensor", "z = R.take(x, i)\nreturn z"), lambda: (np.asarray(1.5), np.asarray(0)), tags=("7",)),
    Repro("nll_loss_python_float",
          _main("x: R.Tensor, t: R.Tensor", "z = R.nn.nll_loss(x, t)\nreturn z"), lambda: (np.asarray(1.5), np.asarray(0)),
          tags=("7",)),
    Repro("int_tensor_1e30",
          _main('x: R.Tensor((1,), "int64")', "return x"), lambda: ([10 ** 30],), tags=("7",)),
    Repro("object_array_dtypeless",
          _main("x: R.Tensor", "y = R.add(x, x)\nreturn y"), lambda: (np.array([object()], dtype=object),),
          tags=("7",)),
    Repro("deep_recursion", open_recursion(), lambda: (np.array(10 ** 6, "int64"),), tags=("7",)),
    # 11. integer mean over an empty axis with an output element: a division by zero (OP.STAT.SEM.2)
    Repro("int_mean_empty_axis",
          _main('x: R.Tensor((2, 0), "int32")', "y = R.mean(x, axis=[1])\nreturn y"),
          lambda: (np.zeros((2, 0), "int32"),), tags=("11",)),
    # the third fuzzing run (docs/FUZZING.md)
    Repro("one_hot_empty_depth_2p63_minus_1",
          _main('i: R.Tensor(("n", 3), "int32")', "y = R.one_hot(i, R.prim_value(T.float32(1.0)), "
                "R.prim_value(T.float32(0.0)), depth=9223372036854775807)\nreturn y"),
          lambda: (np.zeros((0, 3), "int32"),), tags=("fuzz3",)),
    Repro("broadcast_to_void_2p64",
          _main("x: R.Tensor((1,))", "y = R.broadcast_to(x, (4294967296, 4294967296))\nreturn y"),
          lambda: (_f32(1),), tags=("fuzz3",)),
    Repro("memory_view_size_and_bounds",
          _main('x: R.Tensor((4,), "float32")', 'y = R.memory.view(x, R.shape([9223372036854775807]), '
                'R.dtype("int16"), R.prim_value(6))\nreturn y'), lambda: (_f32(4),), tags=("fuzz3",)),
    Repro("kv_cache_create_4_by_2p32",
          _main("", 'c = R.call_pure_packed("vm.builtin.attention_kv_cache_create", R.zeros(R.shape([4, 3]), '
                '"float32"), R.shape([4, 4294967296]), R.prim_value(0), sinfo_args=R.Object)\nreturn c'),
          tags=("fuzz3",)),
    Repro("pad_2p32",
          _main('x: R.Tensor((1, 1, 2, 2), "float32")', "y = R.nn.pad(x, [0, 0, 0, 0, 0, 0, 0, 4294967296])\nreturn y"),
          lambda: (_f32(1, 1, 2, 2),), tags=("fuzz3",)),
    Repro("adaptive_avg_pool2d_2p31",
          _main('x: R.Tensor((1, 1, 2, 2), "float32")', "y = R.nn.adaptive_avg_pool2d(x, (3, 2147483648))\nreturn y"),
          lambda: (_f32(1, 1, 2, 2),), tags=("fuzz3",)),
    Repro("index_tensor_empty_axis",
          _main('x: R.Tensor((0, 3), "float32"), i: R.Tensor((2,), "int64"), j: R.Tensor((2,), "int64")',
                "y = R.index_tensor(x, (i, j))\nreturn y"),
          lambda: (_f32(0, 3), np.array([4, 4]), np.array([0, 1])), tags=("fuzz3",)),
    Repro("tir_loop_2p31_harness_budget", TIR_LOOP.replace("4611686018427387904", "2147483648"),
          lambda: (_f32(4),), tags=("fuzz3",), max_steps=1 << 20),
]

#: reproducers of the campaign whose programs are defined: (name, text, args, expected value)
DEFINED = [
    # 7. gather_nd with index tuples of length 0 selects the whole data once per index position
    ("gather_nd_empty_index",
     _main('x: R.Tensor((3, 4), "float32"), i: R.Tensor((2, 0), "int64")', "y = R.gather_nd(x, i)\nreturn y"),
     lambda: (np.arange(12, dtype="float32").reshape(3, 4), np.zeros((2, 0), "int64")),
     np.broadcast_to(np.arange(12, dtype="float32").reshape(3, 4), (2, 3, 4))),
    # 11. integer mean over an empty axis whose result is empty: nothing divides (OP.STAT.SEM.2)
    ("int_mean_empty_result",
     _main('x: R.Tensor((0, 0), "int32")', "y = R.mean(x, axis=[0])\nreturn y"),
     lambda: (np.zeros((0, 0), "int32"),), np.zeros((0,), "int32")),
    # the third fuzzing run: a stride near 2**63 takes one row (relax_jax aborted XLA)
    ("strided_slice_stride_2p63_minus_1",
     _main('x: R.Tensor((3, 4), "int16")',
           "y = R.strided_slice(x, [0, 1], [1, -1], [100, 0], [9223372036854775807, -1])\nreturn y"),
     lambda: (np.arange(12, dtype="int16").reshape(3, 4),),
     np.arange(12, dtype="int16").reshape(3, 4)[1:2, :0:-1]),
]
