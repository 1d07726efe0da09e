"""The static part of ``relax.einsum`` (OP.LINALG.SEM.2): label extents, broadcasting and the numpy
equation, computed from the operand shapes exactly as the reference does."""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import numpy as np

from relax_ref.errors import OpRuntimeError


def _extent(ctx, a: int, b: int, what: str) -> int:
    if a == b or b == 1:
        return a
    if a == 1:
        return b
    raise ctx.error(OpRuntimeError, f"relax.einsum: {what} has the incompatible extents {a} and {b}")


def plan_einsum(ctx, eq, arrays: Sequence) -> Tuple[str, List[Tuple[int, ...]]]:
    from relax_ref.ops.linalg import ELLIPSIS

    if len(eq.inputs) != len(arrays):
        raise ctx.error(OpRuntimeError, f"relax.einsum: the equation has {len(eq.inputs)} operands but "
                        f"{len(arrays)} tensors are given")
    extent: Dict[str, int] = {}
    ells: List[Tuple[int, ...]] = []
    for sub, a in zip(eq.inputs, arrays):
        labels = [lab for lab in sub if lab != ELLIPSIS]
        k = a.ndim - len(labels)
        if k < 0 or (k and ELLIPSIS not in sub):
            raise ctx.error(OpRuntimeError, f"relax.einsum: operand of shape {a.shape} does not match {''.join(sub)}")
        dim = 0
        for lab in sub:
            if lab == ELLIPSIS:
                ells.append(tuple(a.shape[dim:dim + k]))
                dim += k
            else:
                extent[lab] = int(a.shape[dim]) if lab not in extent else \
                    _extent(ctx, extent[lab], int(a.shape[dim]), f"label {lab!r}")
                dim += 1
    ell: Tuple[int, ...] = ()
    if ells:
        try:
            ell = tuple(np.broadcast_shapes(*ells))
        except ValueError:
            raise ctx.error(OpRuntimeError, f"relax.einsum: ellipsis shapes {ells} cannot be broadcast") from None
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    name = {lab: next(letters) for lab in sorted(extent)}
    ell_names = [next(letters) for _ in ell]
    terms, targets = [], []
    for sub, a in zip(eq.inputs, arrays):
        labels = [lab for lab in sub if lab != ELLIPSIS]
        k = a.ndim - len(labels)
        letters_of, target = [], []
        for lab in sub:
            if lab == ELLIPSIS:
                letters_of += ell_names[len(ell) - k:]
                target += list(ell[len(ell) - k:])
            else:
                letters_of.append(name[lab])
                target.append(extent[lab])
        targets.append(tuple(target))
        terms.append("".join(letters_of))
    out = "".join("".join(ell_names) if lab == ELLIPSIS else name[lab] for lab in eq.output)
    return ",".join(terms) + "->" + out, targets


__all__ = ["plan_einsum"]
