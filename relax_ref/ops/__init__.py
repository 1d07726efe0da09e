"""Operators: the registry (:mod:`.registry`) and one module per category that registers entries."""

from .registry import OpDef, Param, all_ops, get, lookup, lookup_script, register

__all__ = ["OpDef", "Param", "all_ops", "get", "lookup", "lookup_script", "register"]
