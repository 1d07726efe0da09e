"""Building Relax programs from Python (spec: the builder produces normalized, well-formed IR).

* :class:`BlockBuilder` -- functions, dataflow blocks, ``emit`` / ``emit_output`` / ``match_cast``,
  ``emit_func_output``, ``add_func``, ``emit_te``, ``get() -> IRModule``;
* :mod:`relax_ref.builder.op` -- operator call constructors generated from the registry
  (``op.add``, ``op.matmul``, ``op.nn.softmax``, ``op.call_tir`` ...);
* struct info constructors ``Tensor``, ``Shape``, ``Prim``, ``Tuple``, ``Object``, ``Callable``;
  ``sym_var``; expression helpers ``var``, ``const``, ``shape``, ``prim_value``, ``string``,
  ``dtype``, ``tuple_``, ``get_item``, ``extern``, ``call_packed``, ``call``, ``if_``.
"""

from __future__ import annotations

from . import op
from .block_builder import BlockBuilder
from .values import (
    Callable, Object, Prim, Shape, Tensor, Tuple, call, call_packed, const, dtype, extern, get_item, if_,
    prim_value, shape, string, sym_var, tuple_, var,
)

__all__ = [
    "BlockBuilder", "op", "Tensor", "Shape", "Prim", "Tuple", "Object", "Callable", "sym_var", "var", "const",
    "shape", "prim_value", "string", "dtype", "tuple_", "get_item", "extern", "call_packed", "call", "if_",
]
