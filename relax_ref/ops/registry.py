"""The operator registry (spec rule OP.0): the table of every :class:`~relax_ref.ops.opdef.OpDef`,
keyed by operator name and by script name, read by every layer above this package.

It is built once, when this module is imported, from the ``OPS`` of the family modules (in the order
of ``FAMILIES``; a later entry of the same name replaces an earlier one), and it does not change
afterwards: there is no run-time registration. Backends keep their own tables keyed by the operator
name (the reference interpreter's :mod:`relax_ref.interp.op_table`, the JAX executor's
``relax_jax.lowering.LOWERINGS``).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Dict, List, Mapping, Optional

from ..errors import RelaxError
from . import (
    ccl, core, create, datatype, dist, elementwise, grad, image, index, inspect, layout_transform, linalg, manipulate,
    memory, nn, nn_attention, nn_attention_var_len, nn_conv, nn_loss, nn_norm, nn_pool, qdq, sampling, scatter, search,
    statistical,
)
from .opdef import (
    ARG_CONVERSIONS, ATTR_CONVERSIONS, REQUIRED, OpDef, Param, arg, attr, build_call, convert_arg, convert_attr,
)

#: the operator families (one module each), in the order their entries are read
FAMILIES = (core, create, datatype, elementwise, grad, image, index, inspect, layout_transform, linalg, manipulate,
            memory, nn, nn_attention, nn_attention_var_len, nn_conv, nn_loss, nn_norm, nn_pool, qdq, sampling,
            scatter, search, statistical, dist, ccl)


def _table() -> Dict[str, OpDef]:
    out: Dict[str, OpDef] = {}
    for family in FAMILIES:
        for d in family.OPS:
            out.pop(d.name, None)      # a replaced entry takes its new place in the order
            out[d.name] = d
    return out


_REGISTRY: Mapping[str, OpDef] = MappingProxyType(_table())
_BY_SCRIPT: Mapping[str, OpDef] = MappingProxyType({d.script: d for d in _REGISTRY.values()})
_SORTED: List[OpDef] = sorted(_REGISTRY.values(), key=lambda d: d.name)


def get(name: str) -> OpDef:
    """The entry for ``relax.xxx``; raises ``RelaxError`` for an unknown operator."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise RelaxError(f"unknown operator '{name}'") from None


def lookup(name: str) -> Optional[OpDef]:
    return _REGISTRY.get(name)


def lookup_script(script_name: str) -> Optional[OpDef]:
    """The entry whose script spelling is ``script_name`` (``"R.nn.softmax"``), or None."""
    return _BY_SCRIPT.get(script_name)


def script_names() -> List[str]:
    """The script spellings of every entry (``"R.nn.softmax"``, ...), sorted."""
    return sorted(_BY_SCRIPT)


def all_ops() -> List[OpDef]:
    """Every entry, sorted by name."""
    return list(_SORTED)


__all__ = [
    "FAMILIES", "get", "lookup", "lookup_script", "script_names", "all_ops",
    # the entries' type and the generic call construction (relax_ref.ops.opdef)
    "REQUIRED", "Param", "arg", "attr", "OpDef", "convert_arg", "convert_attr", "build_call", "ARG_CONVERSIONS",
    "ATTR_CONVERSIONS",
]
