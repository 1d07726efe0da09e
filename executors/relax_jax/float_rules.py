"""The spec's floating-point rules on XLA (PRIM.FLOAT.1, PRIM.FLOAT.4).

PRIM.FLOAT.1: every float ``Add``/``Sub``/``Mul``/``Div`` of a Relax or TensorIR node is rounded once to
the node's dtype; no fused multiply-add, no reciprocal in place of a division, no reassociation across
nodes. XLA on the CPU breaks the rule in two places, measured on jaxlib 0.10:

* **HLO rewrites** of the algebraic simplifier (``algsimp``), applied whatever the fast-math flags say:
  ``A / C`` becomes ``A * (1 / C)`` for a constant ``C``, ``(A / B) / C`` becomes ``A / (B * C)``,
  ``A / sqrt(B)`` becomes ``A * rsqrt(B)``, ``(A + C1) + C2`` becomes ``A + (C1 + C2)``. The strict
  compiler options turn that pass off for the executor's compilations (:data:`STRICT_OPTIONS`).
  ``xla_allow_excess_precision=false`` was to keep the rounding of 16-bit floats between nodes; on
  jaxlib 0.10.2 a chain of float16 multiplies and adds stays in float32 whatever it says, so the
  16-bit products (:func:`rounded_multiply`) and TensorIR's float16 sums end in a
  ``reduce_precision`` to the 16-bit format, which the compiler keeps.
* **YNN library fusions without the simplifier** compute wrong values: with ``algsimp`` off, a
  reduction's result broadcast back along the reduced axis keeps a chain of degenerate reshapes and
  broadcasts that the YNN library's fusion (``__ynn_fusion``: reductions, elementwise operations and
  dots fused into one kernel) broadcasts wrongly. ``x + sum(x, axis=0, keepdims=True)`` on a
  ``(2, 32, 128)`` tensor adds ``sum[t, 0]`` to every channel of row ``t`` (off by 6.9, graph and
  TensorIR paths alike; not at ``(2, 8, 32)``, where XLA does not hand the fusion to YNN); the
  tensor-parallel decoder layer on vmap lanes was off by 4.06 the same way. The strict options
  restrict YNN to single dots and single convolutions (``xla_cpu_experimental_ynn_fusion_type``, a
  CPU option other backends ignore; :data:`YNN_FUSION_TYPES`). A convolution left out of YNN runs on
  XLA's Eigen kernel while a ``jax.jit`` program with the default options runs YNN's: the two react
  differently to other work on the cores (measured on the conv block of ``benchmarks/jax_bench.py``:
  Eigen 1.13x of YNN on a quiet machine, 0.84-0.89x at a load average of 11), which made the block's
  ratio against ``jax.jit`` swing between 0.66x and 1.18x from run to run. The other fusion types reproduce it on jaxlib 0.10 (measured): ``ELTWISE``,
  ``REDUCE`` and their combinations on ``x + sum(x, axis=0)``, ``DOT`` (a dot with the operations
  that follow it) on the decoder layer's lanes (off by 4.2); ``tests/jax/test_ynn_fusion.py`` keeps
  the reproducer.
* **Contraction in LLVM**: inside a fused loop a multiply that feeds an add or a subtract becomes one
  ``fma`` (XLA's CPU backend always allows it; no option turns it off, an ``optimization_barrier``
  is gone before code generation, and LLVM folds a product computed in ``float64`` and rounded back
  into a ``float32`` multiply). :func:`rounded_multiply` is the barrier: the ``float32`` product goes
  through ``float64`` and a ``reduce_precision`` that keeps every ``float32`` value (which LLVM cannot
  see through) and back, so the value that leaves the node is the rounded product. ``float16``/``bfloat16`` products are computed in
  ``float32`` (exact) and rounded once by a ``reduce_precision`` to their format before the conversion (a
  ``float16`` product below the least normal to a multiple of ``2**-24`` instead: ``reduce_precision`` flushes the
  format's subnormals). ``float64`` products have no wider type and
  stay contractable, which PRIM.FLOAT.6 allows an optimizing executor (as it allows XLA's CPU backend
  to flush subnormal ``float32``/``float64`` values to zero).

  The barrier is needed only where a contraction can happen: LLVM contracts a multiply with an add
  or subtract that consumes its result, never with a multiply, a divide or a dot that takes it as a
  factor, and XLA adds a product to a reduction's accumulator without contracting them (measured:
  ``tests/jax/test_tir_products.py``). A ``multiply``, ``nn.silu``, ``nn.gelu`` or ``nn.rms_norm``
  binding whose value is used only as an operand of ``multiply``, ``divide`` or ``matmul``
  (:func:`factor_only_products`: the SiLU and the gate of a gated MLP, ``x * rsqrt(...) * w`` of an
  RMSNorm written out or ``R.nn.rms_norm``) is lowered to the plain product, which is then rounded
  once by construction (``with plain_products():``); so are the products inside an operator's
  lowering that are only summed or used as factors (the squares of a variance, a normalized value
  before ``* gamma``: ``relax_jax.ops.nn_norm``).

Both are the default (``relax_jax.compile(mod, float_rules="strict")``); ``float_rules="fast"`` gives
XLA's own rewrites back (results may then differ from the reference in the last bit, which rounding,
``floor`` and ``ceil`` can turn into a whole unit). ``benchmarks/jax_bench.py --only fp`` measures the
cost of the strict rules side by side; ``benchmarks/xla_compile.py`` their compile time (the Llama
programs at 1b: XLA's CPU time 1.11x of the hand-written program's with XLA's default options, 1.25x
with the strict ones, almost all of the difference the YNN restriction; the multiply barriers and
``xla_allow_excess_precision`` cost nothing measurable).
"""

from __future__ import annotations

import threading
from typing import Any, Dict, FrozenSet

import jax.numpy as jnp
import numpy as np
from jax import lax

from .laxops import astype, multiply

#: the rule sets an executable can compile with
MODES = ("strict", "fast")

#: the YNN library fusions the strict rules keep: single dots and single convolutions, no fusion of a
#: reduction or an elementwise operation (see the module docstring)
YNN_FUSION_TYPES = "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT,LIBRARY_FUSION_TYPE_INDIVIDUAL_CONVOLUTION"

#: XLA compiler options that keep PRIM.FLOAT.1 at the HLO level (see the module docstring)
STRICT_OPTIONS: Dict[str, Any] = {"xla_disable_hlo_passes": "algsimp", "xla_allow_excess_precision": False,
                                  "xla_cpu_experimental_ynn_fusion_type": YNN_FUSION_TYPES}

_state = threading.local()


def check_mode(mode: str) -> str:
    if mode not in MODES:
        from relax_ref.errors import TypeMismatchError

        raise TypeMismatchError(f"float_rules must be one of {', '.join(MODES)}, got {mode!r}")
    return mode


def compiler_options(mode: str) -> Dict[str, Any]:
    """The XLA compiler options of an executable compiled with ``float_rules=mode``."""
    return dict(STRICT_OPTIONS) if mode == "strict" else {}


#: the pass the strict options also turn off for a program with 16-bit float values
#: (:func:`for_16bit_floats`)
HALF_FLOAT_PASSES = "reshape-mover"


def for_16bit_floats(options: Dict[str, Any]) -> Dict[str, Any]:
    """``options`` for a program that has ``float16``/``bfloat16`` values: with the algebraic simplifier
    off, XLA's reshape mover too. XLA's CPU backend computes a 16-bit transpose between conversions
    to and from ``float32`` that only the simplifier folds; without it the mover sinks the transpose
    through those conversions once per round of the simplification pipeline, every round adding a
    transpose and a copy until the pipeline's round limit (measured on jaxlib 0.10.2: a ``bfloat16``
    decoder's attention output grew 300 transposes per layer, the 1b prefill's XLA compilation took
    1.41-1.47 s instead of 0.88 s). The mover only moves reshapes and transposes: no value changes.
    Other options are returned as they are."""
    passes = options.get("xla_disable_hlo_passes", "")
    if "algsimp" not in passes.split(",") or HALF_FLOAT_PASSES in passes.split(","):
        return options
    return {**options, "xla_disable_hlo_passes": f"{passes},{HALF_FLOAT_PASSES}"}


def strict() -> bool:
    """Whether the lowering being traced keeps the strict rules (the default outside an executable)."""
    return getattr(_state, "mode", "strict") == "strict"


class tracing_mode:  # noqa: N801 - used as a context manager, reads like a function
    """``with tracing_mode(mode):`` -- lower the operators of one trace under ``mode``."""

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self.prev = getattr(_state, "mode", "strict")
        _state.mode = self.mode

    def __exit__(self, *exc: Any) -> None:
        _state.mode = self.prev


_F32 = np.dtype("float32")
_F64 = np.dtype("float64")
_HALF = (np.dtype("float16"), np.dtype(jnp.bfloat16))


def rounded_multiply(a: Any, b: Any) -> Any:
    """``a * b`` rounded once to the operands' (common) float dtype, never contracted with the node that
    consumes it (PRIM.FLOAT.1). Under ``float_rules="fast"``, or for ``float64`` (no wider type to
    compute in; XLA may then fuse the product into an ``fma`` of the consumer), the plain product.
    Operands promote as ``jnp.multiply`` promotes them (Python scalars are weakly typed)."""
    if not strict():
        return multiply(a, b)
    t = np.dtype(jnp.result_type(a, b))
    if t == _F32 and not getattr(_state, "plain", False):
        p = multiply(astype(a, t), astype(b, t))
        # through float64 and back, with a reduce_precision to a 10-bit exponent between: a no-op on
        # every float32 value (exponents -149..127), but not one that LLVM can see through, so ``p``
        # stays a rounded product and never becomes the multiply of an fma
        return astype(lax.reduce_precision(astype(p, _F64), exponent_bits=10, mantissa_bits=52), _F32)
    if t in _HALF:
        p = multiply(astype(astype(a, t), _F32), astype(astype(b, t), _F32))
        e, m = (5, 10) if t == np.dtype("float16") else (8, 7)
        r = lax.reduce_precision(p, exponent_bits=e, mantissa_bits=m)
        if t == np.dtype("float16"):
            # reduce_precision flushes the format's subnormals to zero: a product below float16's least
            # normal (2**-14) is rounded to a multiple of 2**-24 instead (exact scalings by powers of
            # two around a round half to even), as the conversion rounds it
            sub = lax.round(p * np.float32(2.0 ** 24), lax.RoundingMethod.TO_NEAREST_EVEN) * np.float32(2.0 ** -24)
            r = lax.select(lax.abs(p) < np.float32(2.0 ** -14), sub, r)
        return astype(r, t)
    return multiply(a, b)


class plain_products:  # noqa: N801 - used as a context manager, reads like a function
    """``with plain_products():`` -- lower one binding of :func:`factor_only_products`: its product is
    used only as a factor, so :func:`rounded_multiply` needs no barrier."""

    def __enter__(self) -> None:
        self.prev = getattr(_state, "plain", False)
        _state.plain = True

    def __exit__(self, *exc: Any) -> None:
        _state.plain = self.prev


#: operators whose only float product that needs the barrier is their result (the lowering's last
#: operation; the GELU's inner products cannot be contracted, :func:`relax_jax.ops.elementwise.gelu`,
#: nor RMSNorm's, summed or used as factors, ``relax_jax.ops.nn_norm``)
PRODUCT_OPS = frozenset({"relax.multiply", "relax.nn.silu", "relax.nn.gelu", "relax.nn.rms_norm"})
#: operators that take each tensor operand only as a factor: no add or subtract consumes it
FACTOR_CONSUMERS = frozenset({"relax.multiply", "relax.divide", "relax.matmul"})


def factor_only_products(mod) -> FrozenSet[int]:
    """``id``s of the calls of :data:`PRODUCT_OPS` bound in the Relax functions of ``mod`` whose
    variable occurs only as a direct argument of :data:`FACTOR_CONSUMERS` calls (PRIM.FLOAT.1: no
    consumer can contract the product, so the plain product is rounded once). A variable returned,
    put in a tuple, passed to a function or to any other operator is not one of them."""
    from relax_ref.ir import expr as rx
    from relax_ref.ir.functor import ExprVisitor

    class Uses(ExprVisitor):
        def __init__(self) -> None:
            self.total: Dict[int, int] = {}
            self.factor: Dict[int, int] = {}
            self.products: Dict[int, int] = {}

        def visit_Var(self, v) -> None:
            self.total[id(v)] = self.total.get(id(v), 0) + 1

        visit_DataflowVar = visit_Var

        def visit_binding(self, b) -> None:
            v = b.value
            if isinstance(v, rx.Call) and isinstance(v.op, rx.Op):
                if isinstance(b, rx.VarBinding) and v.op.name in PRODUCT_OPS:
                    self.products[id(b.var)] = id(v)
                if v.op.name in FACTOR_CONSUMERS:
                    for a in v.args:
                        if isinstance(a, rx.Var):
                            self.factor[id(a)] = self.factor.get(id(a), 0) + 1
            super().visit_binding(b)

    out = set()
    for _, f in mod.functions_items():
        if isinstance(f, rx.Function):
            u = Uses()
            u.visit_expr(f)
            out |= {call for var, call in u.products.items() if u.total.get(var, 0) == u.factor.get(var, 0)}
    return frozenset(out)


__all__ = ["MODES", "STRICT_OPTIONS", "HALF_FLOAT_PASSES", "check_mode", "compiler_options", "for_16bit_floats",
           "strict", "tracing_mode", "rounded_multiply", "plain_products", "factor_only_products", "PRODUCT_OPS",
           "FACTOR_CONSUMERS"]
