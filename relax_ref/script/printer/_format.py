"""Literal formatting shared by the Relax and TensorIR printers (spec rule TEXT.LIT.*).

Floats follow TVM's printer: a value with no fractional part prints in fixed notation with one
decimal (``2.0``, ``-340282346638528859811704183484516925440.0``), any other finite value with 17
significant digits (``1.0000000000000001e-05``), which reads back to the same double. Non-finite
values are spelled per context by the callers (``T.float32("inf")`` in TensorIR,
``float("inf")`` inside ``R.const``), because TVM 0.25's parser rejects ``R.const("inf", ...)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def format_float(value: float) -> str:
    """TVM's float spelling for a finite value (TEXT.LIT.1)."""
    v = float(value)
    if math.isinf(v) or math.isnan(v):
        raise ValueError("format_float: non-finite values are spelled by the caller")
    if v == math.floor(v):
        text = "%.1f" % v
        return text
    return "%.17g" % v


def nonfinite_word(value: float) -> str:
    """``"inf"``, ``"-inf"`` or ``"nan"`` (the sign of a NaN is not kept, as in TVM)."""
    v = float(value)
    if math.isnan(v):
        return "nan"
    return "inf" if v > 0 else "-inf"


def python_float(value: float) -> str:
    """A float as a Python expression our parser and TVM's both evaluate: non-finite values
    become ``float("inf")`` / ``float("-inf")`` / ``float("nan")``."""
    v = float(value)
    if math.isinf(v) or math.isnan(v):
        return f'float("{nonfinite_word(v)}")'
    return format_float(v)


def format_str(value: str) -> str:
    """A double-quoted Python string literal with TVM's escapes."""
    out = ['"']
    for ch in value:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def format_scalar(value: Any) -> str:
    """A Python scalar (bool / int / float / numpy scalar) as a literal."""
    if isinstance(value, (bool, np.bool_)):
        return "True" if bool(value) else "False"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return python_float(float(value))


__all__ = ["format_float", "nonfinite_word", "python_float", "format_str", "format_scalar"]
