"""Donated arguments: ``relax_jax.compile(mod, donate_argnums={"decode": (1, 2)})``.

As with ``jax.jit(f, donate_argnums=...)``, the caller gives the JAX arrays it passes at those
parameter positions to the call: a compiled call may compute its results in their memory (XLA buffer
donation), and deletes each of them (``a.is_deleted()``; reading one raises JAX's error), whether or not
its memory was reused. NumPy arguments there are transferred and stay the caller's. Host-mode calls
(functions that do not compile) consume nothing. The results are the same with or without donation:
donation is a promise of the caller, not a change of the function's semantics (a Relax function does
not consume its parameters, CALL.INPLACE.6 aside).

Why it matters for a growing cache written with ``concat``: a result cut from a padded buffer is a
zero-copy view of that buffer (on the CPU), and passed back it is passed as the buffer
(``reuse_padded``). Donating the argument donates the buffer: the view is deleted first (a buffer that
a live view shows cannot be donated; the runtime would copy it instead), and ``concat``'s
``dynamic_update_slice`` into it then writes the new rows in place instead of copying the cache. A
buffer that anything else still shows -- another result cut from it, a NumPy view the caller took --
keeps its external reference, and the runtime copies it: donation never changes what such a view
shows.
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, Iterable, Mapping, Optional, Sequence, Tuple

import jax
import jax.numpy as jnp

from relax_ref.errors import RelaxRuntimeError, TypeMismatchError
from relax_ref.ir import expr as rx
from relax_ref.ir.struct_info import TensorStructInfo



def resolve(spec: Optional[Mapping[str, Iterable[int]]]) -> Dict[str, FrozenSet[int]]:
    """The ``donate_argnums`` option as a table entry -> parameter indices (checked when the entry
    is planned, :func:`checked`)."""
    if spec is None:
        return {}
    if not isinstance(spec, Mapping):
        raise TypeMismatchError("donate_argnums must map function names to parameter indices, got "
                                f"{type(spec).__name__}")
    out: Dict[str, FrozenSet[int]] = {}
    for name, idx in spec.items():
        if not isinstance(name, str):
            raise TypeMismatchError(f"donate_argnums: function names are strings, got {name!r}")
        if isinstance(idx, int):
            idx = (idx,)
        idx = tuple(idx)
        if not all(isinstance(k, int) and not isinstance(k, bool) for k in idx):
            raise TypeMismatchError(f"donate_argnums[{name!r}]: parameter indices are integers, got {idx!r}")
        out[name] = frozenset(idx)
    return out


def checked(mod: Any, spec: Dict[str, FrozenSet[int]]) -> Dict[str, FrozenSet[int]]:
    """``spec`` with each function's indices checked: a Relax function of ``mod``, indices of its tensor
    parameters (negative indices count from the end, as in ``jax.jit``)."""
    return {name: _checked_function(mod, name, idx) for name, idx in spec.items()}


def _checked_function(mod: Any, name: str, indices: FrozenSet[int]) -> FrozenSet[int]:
    func = mod[name] if name in mod else None
    if not isinstance(func, rx.Function):
        raise TypeMismatchError(f"donate_argnums: the module has no Relax function {name!r}")
    n = len(func.params)
    out = set()
    for k in indices:
        j = k + n if k < 0 else k
        if not 0 <= j < n:
            raise TypeMismatchError(f"donate_argnums[{name!r}]: {k} is not a parameter index of a function with "
                                    f"{n} parameters")
        if not isinstance(func.params[j].struct_info, TensorStructInfo):
            raise TypeMismatchError(f"donate_argnums[{name!r}]: parameter {j} ('{func.params[j].name_hint}') is "
                                    "not a tensor; only tensor parameters can be donated")
        out.add(j)
    return frozenset(out)


def take(given: Tuple[Tuple[int, int], ...], args: Sequence[Any], flat: list, padded_src: Dict[int, Any]) -> bool:
    """Before a compiled call: hand the donated arguments (``given``: pairs of flat position and
    parameter index) to XLA. An argument passed as the padded buffer it was cut from gives that
    buffer: the view is deleted and forgotten first, so that the buffer has no other user. A JAX
    array that the call also receives at another position is copied (the runtime cannot take one
    buffer twice). Whether any caller's array is consumed."""
    consumed = False
    for pos, k in given:
        a, f = args[k], flat[pos]
        if not isinstance(a, jax.Array):
            continue                        # numpy: transferred, the caller keeps it
        consumed = True
        if sum(x is f for x in flat) > 1 or any(x is a for i, x in enumerate(flat) if i != pos):
            flat[pos] = jnp.array(f, copy=True)
        elif f is not a:
            padded_src.pop(id(a), None)
            a.delete()                      # the view of the padded buffer ``f``, or a padded copy's source
    return consumed


def release(given: Tuple[Tuple[int, int], ...], args: Sequence[Any]) -> None:
    """After a compiled call: every donated JAX array is deleted, whether XLA reused it or not."""
    for _, k in given:
        a = args[k]
        if isinstance(a, jax.Array) and not a.is_deleted():
            a.delete()


__all__ = ["resolve", "checked", "take", "release"]


def deleted_argument(entry: str, fn: Any, args: Sequence[Any]) -> Optional[RelaxRuntimeError]:
    """The error for the first argument of ``args`` that is a deleted JAX array (donated to an earlier
    call, or deleted by the caller: it has no value any more), or None. A call never reads it: the
    general path asks before anything runs, a fast path when the compiled call refused it."""
    for i, a in enumerate(args):
        if isinstance(a, jax.Array) and not isinstance(a, jax.core.Tracer) and a.is_deleted():
            params = getattr(fn, "params", None) or ()
            name = f" ('{params[i].name_hint}')" if i < len(params) else ""
            return RelaxRuntimeError(
                f"argument {i}{name} of '{entry}' is a deleted JAX array: it was donated to an earlier call "
                f"(donate_argnums) or deleted, and has no value; pass the array that call returned")
    return None
