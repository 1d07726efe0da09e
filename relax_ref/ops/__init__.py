"""Operators: one module per family, each defining the ``OPS`` of its operators
(:class:`~relax_ref.ops.opdef.OpDef`), and the registry built from them (:mod:`.registry`)."""

from .opdef import OpDef, Param
from .registry import all_ops, get, lookup, lookup_script

__all__ = ["OpDef", "Param", "all_ops", "get", "lookup", "lookup_script"]
