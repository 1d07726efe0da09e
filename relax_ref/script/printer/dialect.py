"""The dialects the printer writes: the table lives in :mod:`relax_ref.script.dialect` (TEXT.DIALECT.1)."""

from __future__ import annotations

from ..dialect import (
    ALIASES, CLASSIC, DIALECTS, NEWEST, TVM025, TVM027, Dialect, dialect_names, get_dialect,
)

__all__ = ["Dialect", "CLASSIC", "TVM025", "TVM027", "NEWEST", "ALIASES", "DIALECTS", "dialect_names",
           "get_dialect"]
