"""relax_jax: the JAX/XLA executor of relax-ref modules.

API
===

``relax_jax.compile(mod, *, device=None, shape_buckets="pow2", exact_cache_size=32, specialize_after=32,
reuse_padded=True, pad_poison=False, stdout=None, float_rules="strict", donate_inplace=False,
donate_argnums=None, reserve=None, padded_results=None) -> Executable``
    ``mod`` is a normalized IRModule (``relax_ref.parse``) or TVMScript text. ``device``: a JAX device or a
    platform name (``"cpu"``, ``"gpu"``); default the first CPU device (arguments are transferred to it: NumPy
    arrays, and JAX arrays placed on another device, which are copied). ``shape_buckets``: ``"pow2"``, a
    list of sizes, a function ``n -> bucket >= n``, or ``None`` for exact shapes (see Bucketing).
    ``reuse_padded``: a result cut from a padded buffer remembers that buffer (as long as the result
    lives), and passing the result back as an argument of the same bucket passes the buffer without
    padding it again -- the decode loop of a growing KV cache then pads only on its first step (costs
    the padded buffer's memory while the result lives). ``pad_poison``: fill padding with NaN / the
    integer maximum / True instead of zeros, a check that no result depends on the padding.
    ``donate_inplace``: a tensor parameter that the function's in-place calls consume (CALL.INPLACE.6:
    ``call_tir_inplace`` / ``call_inplace_packed`` on it, never read afterwards, the result returned) is
    donated to XLA, which computes the result in its buffer (no copy; where a symbolic signature is
    padded to a bucket, only in exact-shape compilations); with ``False`` (default) a caller's JAX array
    there is copied first and stays valid, with ``True`` it is consumed (deleted, as
    ``jax.jit(donate_argnums=...)`` does; a check that fails in such a call raises the traced check's
    error, without the host re-run that names the binding, as for KV caches). Numpy arguments are
    transferred either way, and written back.
    ``donate_argnums``: ``{function name: parameter indices}`` of tensor parameters whose arguments the
    caller donates, as with ``jax.jit(donate_argnums=...)`` (:mod:`relax_jax.donation`): a compiled call
    may compute its results in their memory and deletes each JAX array passed there (NumPy arguments
    are transferred and kept; host-mode calls consume nothing); the results are the same as without
    donation. A cache grown by ``concat`` and passed back donated is grown in its padded buffer in
    place (no copy of the cache per step); a failed run-time check in such a call raises the traced
    check's error without the host re-run.
    ``padded_results``: function names (a string or an iterable) whose tensor results are returned as
    :class:`relax_jax.PaddedArray` handles where the executor holds them in a larger (bucket-padded)
    buffer, instead of being cut to exact ``jax.Array`` s (:mod:`relax_jax.padded`): the same values
    (``shape``, ``dtype``, elements through ``np.asarray``, ``jnp.asarray`` or ``.array()``), but not
    ``jax.Array`` s: registered as pytrees of the exact array, they are taken by ``jax.numpy`` functions,
    ``jax.jit`` and the other transformations; they have no arithmetic operators of their own.
    Passed back to a call, a handle is passed as its buffer (no cut, no padding); at a donated position
    its buffer is donated and the handle deleted, and reading it afterwards raises a ``RelaxError``.
    A caller that only reads some results and passes the others back (a decode loop's caches) saves the
    cut of each result on every call.
    ``reserve``: the rows a growing value may reach: a symbolic variable that a function's result
    extends (a result extent ``v + c``, as a cache grown by ``concat``) is bucketed to at least the
    bucket of ``reserve``, so a decode loop that grows its caches up to ``reserve`` rows compiles once,
    as a KV cache created with that capacity does (default: the growth-aware bucket of each value); the
    history of a paged KV cache's sequence (CALL.PAGEDKV.8) is bucketed to at least it too.
    ``float_rules``: ``"strict"`` keeps PRIM.FLOAT.1 (one rounding per node: no reciprocal for a
    division, no reassociation, no fused multiply-add; :mod:`relax_jax.float_rules`), ``"fast"`` lets
    XLA rewrite float arithmetic. ``as_jax_function`` keeps the multiply barriers; the enclosing
    ``jax.jit``'s compiler options are the caller's.

``exe(entry, *args)`` / ``exe.run(entry, *args)``
    Calls a function of the module. Arguments follow the reference's host convention (VAL.HOST.1):
    numpy or JAX arrays for tensors, Python/numpy scalars or ``PrimScalar`` for prim values, tuples
    of ints or ``ShapeValue`` for shapes, tuples for tuples. Results: JAX arrays (on the executable's
    device) for tensors, tuples as tuples, ``ShapeValue`` for shapes, Python scalars for prim values
    (the reference's ``to_public``; with ``padded_results``, ``PaddedArray`` handles for tensors held in
    larger buffers). Run-time errors are the reference's :mod:`relax_ref.errors`
    classes. A numpy argument that a PrimFunc mutates in place (a direct PrimFunc call,
    ``call_tir_inplace``, an in-place packed function) is written back, as in the reference; JAX
    arrays are immutable and are not. Called with traced arguments (inside ``jax.jit`` and friends),
    it behaves as ``exe.as_jax_function(entry)``.

``exe.as_jax_function(entry, *, checks="raise")``
    A pure function of JAX arrays usable inside ``jax.jit``, ``jax.grad`` (differentiable operators) and
    ``jax.vmap`` (see :mod:`relax_jax.jaxfn`).

``exe.export(entry, *, constraints=(), checks="raise") -> bytes``
    ``entry`` exported with symbolic dimensions through ``jax.export`` and serialized; the signature's
    symbolic variables become dimension variables, so the artifact runs at every size
    (``relax_jax.export.deserialize(data).call(*args)``). StableHLO text and bytecode:
    :mod:`relax_jax.export`, ``relax-ref export FILE --entry main -o main.stablehlo``.

``exe.register_func(name, fn)``: a packed function for this executable (the global registry of
``relax_ref.register_func`` is consulted too). ``exe.stats``: counters (``compiles``, ``cache_hits``,
``fallbacks``, ``host_calls``, ``error_reruns``, ``kernel_compiles``, ``specializations``,
``host_pads``, ``reused_pads``, ``grown_before_compile``);
``exe.fallback_reasons``: why a function compiles for exact shapes or runs on the host.

Execution
=========

Each Relax function is traced once per bucket signature by :class:`~relax_jax.walker.Walker` into one
``jax.jit`` computation (nested calls, closures, dataflow blocks and ``call_tir`` kernels inlined; an
``If`` on a traced condition becomes ``lax.cond``, on a static one is decided while tracing). Entry
struct-info checks run on the host before dispatch (:mod:`relax_jax.hotpath`: when the arguments have
exactly the compiled physical shapes the compiled executable itself checks shapes and dtypes; when they
are below their buckets a second fast path binds the symbolic sizes from the shapes; on any mismatch
the general path and the reference's :class:`~relax_ref.interp.checks.Matcher` produce the reference's
error). Checks inside the
function (``match_cast`` on traced sizes, integer division by zero, TensorIR bounds, ``R.assert_op``)
become *check sites* threading an error code through the computation (:mod:`relax_jax.errors`); when
the code is set the call is evaluated again in host mode, which raises the reference's error at the
right place. Checks the host can make before the call (``R.take`` of a small index parameter, a KV
cache's view against its fill count: :mod:`relax_jax.host_checks`) are made there instead, so that a
decode step carries no error code and its call returns without waiting for the computation. Functions using host-only constructs -- packed functions, ``R.print``, data-dependent shapes
(``nonzero``, ``unique``, ``tensor_to_shape``), recursion, closures passed in from the host -- run in
*host mode*: the same walker evaluates eagerly on concrete JAX arrays (PrimFuncs as compiled kernels,
global functions through their compiled form when they have one). TensorIR lowering: see
:mod:`relax_jax.tir.kernel` (bounds: proven statically with ``relax_ref.arith`` or checked at run time;
never silently clamped).

Bucketing
=========

Symbolic dimensions of the parameters are rounded up to buckets (powers of two by default); the
compiled function receives padded arrays plus the actual sizes as one traced ``int64`` vector, so all
sizes of a bucket share one compilation. Every value carries, per axis, its logical extent; padding
content is unspecified. Operators declare how they treat padding (below); an operation that cannot be
exact on padded data raises :class:`~relax_jax.errors.NeedsExact` while tracing and the function is
compiled for exact shapes instead (LRU cache of ``exact_cache_size`` per function) -- never a wrong
answer. Buckets are growth-aware: a variable ``v`` with a result extent ``v + c`` gets the bucket of
``v + c``, so a cache that grows by one row per call stays in its bucket, and ``concat`` and
``strided_slice`` keep results within a bucket when the variables' bounds allow it. Results are cut to
their logical shapes on the host (no per-shape compilation; on the CPU a cut along the leading axis
is a zero-copy view of the padded buffer), and with ``reuse_padded`` a result passed back is passed as
its padded buffer. A padded shape
that recurs ``specialize_after`` times gets its own exact compilation (``None`` disables it; the calls
are counted for the ``PADDED_CALLS_SIZE`` (1024) most recently seen padded shapes of a function, so a
long generation, which sees each length once, does not grow the counts without bound). A result's
logical extent that the host computes from the symbolic values (sums, differences, products, minima
and maxima of them) is not an output of the compiled function; others are returned and read. x64: the
executor traces and calls its computations inside ``jax.enable_x64(True)`` (a thread-local context:
the user's global configuration is not changed), so int64 tensors and shape arithmetic are exact.

Exact under padding: all elementwise operators, ``where``, ``astype``, ``clip``, activations,
``one_hot``; reductions (``sum prod mean variance std max min argmax argmin median``, identity fill /
logical counts), scans (``cumsum``, ``cumprod``), ``sort``/``argsort``/``topk`` along a padded axis
(padding sorts last), ``bucketize``, ``matmul`` (padded reduction axis zeroed on both sides; padded
batch/row/column axes pass through), ``outer``, ``softmax``/``log_softmax`` (``-inf`` fill),
``layer_norm``/``rms_norm``, ``attention`` (padded keys excluded, causal offset from logical lengths),
``concat`` along a padded axis (logical offsets), ``permute_dims``, ``expand_dims``, ``squeeze`` (non-padded
axes), ``reshape``/``flatten``/``batch_flatten`` when only the outermost non-unit axis is padded,
``split``/``broadcast_to``/``prelu`` on axes they do not touch, ``strided_slice`` with a positive stride
(symbolic bounds and padded axes included: a dynamic slice or a gather), ``repeat`` along an axis that is
not padded, ``flip``, ``take``, creation
operators (``zeros ones full arange eye tril triu`` and ``*_like``), shape operators, ``call_tir`` (the
PrimFunc sees logical extents; its loops over padded extents are masked). Everything else (convolutions,
pooling, other normalizations, scatters, gathers, ``tile``, ``stack``, ``einsum``, ``pad``,
``resize2d``, ...) requests exact shapes when an operand is padded.

Lowering interface
==================

A lowering is a :class:`~relax_jax.lowering.JaxLowering` in the executor's own table
``relax_jax.lowering.LOWERINGS``, keyed by operator name (the ``@lowering(name, padding=...,
host_only=...)`` decorator adds it when this package is imported; ``relax-ref ops`` shows coverage).
The operator's run-time constraints are its registry entry's ``check``, which the walker calls before
the lowering. ``fn(ctx, *args)`` gets
the evaluated call arguments (tensors as JAX arrays, prims as ``PrimV``, shapes as ``ShapeV``) and
returns JAX arrays / tuples / ``PrimV`` / ``ShapeV`` (or a ``TVal`` to set the output's padding). Errors
on static information are raised as :mod:`relax_ref.errors` classes; data-dependent errors go through
``ctx.check(bad, make_error)``. ``padding="none" | "elementwise" | "aware"`` declares the treatment of
padded operands; an ``"aware"`` lowering reads ``ctx.valid(i)`` (per-axis logical extents of argument
``i``, ``None`` = exact), masks with ``ctx.mask(x, i, axes, fill)``, allocates ``ctx.out_shape`` and may
call ``ctx.require_exact(reason)``. Full details: :mod:`relax_jax.lowering`. To add an operator: write
the lowering in the matching module of :mod:`relax_jax.ops` (mirroring ``relax_ref.ops``) with the
reference implementation's semantics and errors; the conformance suite (``relax-conformance run --impl
jax``) and ``tests/jax`` check it against the reference.
"""

from __future__ import annotations

from typing import Any

from relax_ref._version import __version__

from . import export  # noqa: F401  (relax_jax.export.deserialize, stablehlo_text, ...)
from . import ops as _ops  # noqa: F401  (defines the lowerings)
from .errors import NeedsExact, TraceAbort
from .executable import EXACT_CACHE_SIZE, PADDED_CALLS_SIZE, SPECIALIZE_AFTER, Executable, Stats
from .lowering import LOWERINGS, JaxLowering, LowerCtx, lowering
from .padded import PaddedArray
from .symbolic import ShapeBuckets


def compile(mod, *, device: Any = None, shape_buckets: Any = "pow2", **kwargs) -> Executable:  # noqa: A001
    """Compile ``mod`` (an IRModule, TVMScript text, or a ``tvm.IRModule`` read through TVM's
    printer) for JAX (see the package docstring)."""
    from relax_ref.script.interop import as_module

    mod = as_module(mod, "relax_jax.compile", text=True)
    return Executable(mod, device=device, shape_buckets=shape_buckets, **kwargs)


__all__ = ["__version__", "compile", "Executable", "Stats", "ShapeBuckets", "JaxLowering", "LowerCtx", "lowering",
           "LOWERINGS", "NeedsExact", "TraceAbort", "EXACT_CACHE_SIZE", "SPECIALIZE_AFTER", "PADDED_CALLS_SIZE", "PaddedArray"]
