"""Padded results: ``relax_jax.compile(mod, padded_results={"decode"})``.

By default a tensor result is a ``jax.Array`` of exactly its logical shape: a result computed in a
bucket's larger buffer is cut on the host (:meth:`relax_jax.executable.Executable._cut_results`), a
view and a transfer per result and call. A function named in ``padded_results`` returns such a result
as a :class:`PaddedArray` instead: the padded buffer and the logical shape, cut only when read. It is
the same value (VAL.HOST.1 leaves the host representation to the implementation): its ``shape``,
``dtype``, elements (``np.asarray``, ``jnp.asarray``, :meth:`PaddedArray.array`) are the exact
result's. Passed back to a call of the executable it is passed as its buffer (no cut, no padding, no
look-up), and at a donated position (``donate_argnums``) that buffer is donated: the handle is then
deleted, as a donated ``jax.Array`` is, and reading it raises a :class:`~relax_ref.errors.RelaxError`.

What the caller gives up is the type: a ``PaddedArray`` is not a ``jax.Array``. It is registered as a
pytree whose one leaf is the exact array, and that is what makes JAX take it: ``jax.jit`` and the other
transformations, ``jax.device_put`` and the ``jax.numpy`` functions (most are jitted functions of
pytrees). ``__jax_array__`` alone would not do in JAX 0.10: for an object that only has it,
``jnp.asarray``, ``jnp.concatenate`` and a ``jax.Array``'s operators work, but ``jnp.sin``, ``jnp.sum``,
``jnp.add``, ``jax.jit`` and ``jax.device_put`` raise "Triggering __jax_array__() during
abstractification is no longer supported". A handle has no arithmetic operators and no indexing of its
own (``h + 1`` is a ``TypeError``; ``jnp.ones(n) + h`` works). A result whose buffer has exactly its
shape is a ``jax.Array`` as before.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple

import jax
import numpy as np

from relax_ref.errors import RelaxRuntimeError


class PaddedArray:
    """A tensor result of logical ``shape`` held in the larger buffer ``buffer`` (its leading part).

    ``cut``: the executable's cut of padded buffers (a list of ``(buffer, shape)`` to exact arrays), used
    once, when the exact array is first asked for. ``key``: the buffer's ``(dtype, physical shape)`` when
    its producer knew them (a compiled function's output), a pair interned by the executable
    (:func:`key_table`), which its fast paths compare by identity instead of reading the buffer's dtype
    and shape (the buffer of a handle never changes; it is only given up)."""

    __slots__ = ("_buf", "shape", "_arr", "_cut", "_key", "__weakref__")

    def __init__(self, buf: Any, shape: Tuple[int, ...], cut: Callable[[list], list], key: Any = None) -> None:
        self._buf = buf
        self.shape = shape
        self._arr: Any = None
        self._cut = cut
        self._key = key

    # -- what a jax.Array answers ---------------------------------------------------------------------

    @property
    def dtype(self) -> np.dtype:
        return self._live().dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def buffer(self) -> jax.Array:
        """The padded buffer (its leading ``shape`` part is the value; the rest is unspecified)."""
        return self._live()

    def array(self) -> jax.Array:
        """The exact ``jax.Array`` (made once, a zero-copy view of the buffer on the CPU)."""
        a = self._arr
        if a is None or a.is_deleted():
            buf = self._live()
            a = self._arr = self._cut([(buf, self.shape)])[0]
        return a

    def __jax_array__(self) -> jax.Array:
        return self.array()

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        a = np.asarray(self._live())[tuple(slice(0, n) for n in self.shape)]
        if dtype is not None and np.dtype(dtype) != a.dtype:
            return a.astype(dtype)
        return a.copy() if copy else a

    def block_until_ready(self) -> "PaddedArray":
        self._live().block_until_ready()
        return self

    def is_deleted(self) -> bool:
        return self._buf is None or self._buf.is_deleted()

    def delete(self) -> None:
        """Give the buffer up (what a donating call does): reading the handle afterwards raises."""
        buf, self._buf, self._arr = self._buf, None, None
        if buf is not None and not buf.is_deleted():
            buf.delete()

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d PaddedArray")
        return self.shape[0]

    def __repr__(self) -> str:
        if self.is_deleted():
            return f"PaddedArray(deleted, shape={self.shape})"
        return f"PaddedArray(shape={self.shape}, dtype={self._buf.dtype}, buffer shape={tuple(self._buf.shape)})"

    def _live(self) -> jax.Array:
        buf = self._buf
        if buf is None or buf.is_deleted():
            raise RelaxRuntimeError(
                f"a PaddedArray of shape {self.shape} was read after its buffer was given up: it was "
                "passed to a call at a donated position (donate_argnums) or deleted; a donated value is "
                "consumed, as a donated jax.Array is")
        return buf


jax.tree_util.register_pytree_node(PaddedArray, lambda h: ((h.array(),), None), lambda _aux, ch: ch[0])


def resolve(mod: Any, names: Any) -> frozenset:
    """The ``padded_results`` option: function names of ``mod`` (a string is one name), each a Relax
    function of the module."""
    from relax_ref.errors import TypeMismatchError
    from relax_ref.ir import expr as rx

    if names is None:
        return frozenset()
    if isinstance(names, str):
        names = (names,)
    try:
        names = tuple(names)
    except TypeError:
        raise TypeMismatchError("padded_results must be function names (a string or an iterable of strings), "
                                f"got {type(names).__name__}") from None
    for name in names:
        if not isinstance(name, str):
            raise TypeMismatchError(f"padded_results: function names are strings, got {name!r}")
        if not isinstance(mod[name] if name in mod else None, rx.Function):
            raise TypeMismatchError(f"padded_results: the module has no Relax function {name!r}")
    return frozenset(names)


def key_table() -> Callable[[Any, Tuple[int, ...]], Tuple[Any, Tuple[int, ...]]]:
    """An executable's interning of ``(dtype, physical shape)`` pairs (:class:`PaddedArray`'s ``key``):
    the same pair object for equal pairs."""
    table: dict = {}

    def key(dtype: Any, shape: Tuple[int, ...]) -> Tuple[Any, Tuple[int, ...]]:
        pair = (np.dtype(dtype), tuple(shape))
        return table.setdefault(pair, pair)
    return key


def wrapper(cut: Callable[[list], list]) -> Callable[[list], list]:
    """A cut that gives handles instead of exact arrays (same arguments as ``cut``)."""
    def wrap(items: Sequence[Tuple[Any, Tuple[int, ...]]]) -> list:
        return [PaddedArray(buf, shape, cut) for buf, shape in items]
    return wrap


def unwrap(args: Sequence[Any]) -> Tuple[list, list]:
    """For the general path: each handle among ``args`` (top-level or in tuples) as its exact array
    (which the producing executable remembers as a view of the buffer, ``reuse_padded``), and the
    pairs ``(handle, exact array)``."""
    pairs: list = []

    def conv(a):
        if type(a) is PaddedArray:
            e = a.array()
            pairs.append((a, e))
            return e
        if type(a) is tuple:
            return tuple(conv(x) for x in a)
        return a

    return [conv(a) for a in args], pairs


def settle(pairs: list) -> None:
    """After a call of the general path: a handle whose exact array the call consumed (donated) is
    deleted with it."""
    for h, e in pairs:
        if e.is_deleted():
            h.delete()


__all__ = ["PaddedArray", "resolve", "key_table", "wrapper", "unwrap", "settle"]
