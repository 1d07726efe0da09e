"""The error hierarchy of relax-ref (spec rule ERR.1).

Every error a user can cause -- bad text, an ill-formed program, a struct-info conflict, a run-time
mismatch, an out-of-bounds TensorIR access -- is a subclass of :class:`RelaxError`. Each carries an
optional :class:`Span` (file, line, column) and, where one is involved, the name of the binding and
of the symbolic variable. ``str(err)`` renders ``file:line:col: kind: message`` followed by the source
line with a caret, so command-line tools can print it directly.

Each class has a stable ``kind`` string; the conformance suite's ``error_kind`` vocabulary is built
from these (see ``conformance/FORMAT.md``).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Iterable, Optional


@dataclass(frozen=True)
class Span:
    """A source location. Lines and columns are 1-based; ``source`` is the full text when known."""

    file: str = "<string>"
    line: int = 0
    col: int = 0
    end_line: int = 0
    end_col: int = 0
    source: Optional[str] = field(default=None, repr=False, compare=False, hash=False)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def snippet(self) -> str:
        """The source line of the span with a caret under the start column (empty if unknown)."""
        if not self.source or self.line <= 0:
            return ""
        lines = self.source.splitlines()
        if self.line > len(lines):
            return ""
        text = lines[self.line - 1]
        start = max(self.col - 1, 0)
        if self.end_line == self.line and self.end_col > self.col:
            width = self.end_col - self.col
        else:
            width = max(len(text.rstrip()) - start, 1)
        width = max(1, min(width, max(len(text) - start, 1)))
        return f"    {text}\n    {' ' * start}{'^' * width}"


class RelaxError(Exception):
    """Root of every error relax-ref raises for bad input (ERR.1)."""

    kind = "error"

    def __init__(
        self,
        message: str,
        span: Optional[Span] = None,
        *,
        binding: Optional[str] = None,
        symbol: Optional[str] = None,
        function: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.binding = binding
        self.symbol = symbol
        self.function = function

    def with_span(self, span: Optional[Span]) -> "RelaxError":
        """Attach a span if the error has none yet; returns self for ``raise err.with_span(s)``."""
        if self.span is None and span is not None:
            self.span = span
        return self

    def with_context(self, *, binding: Optional[str] = None, function: Optional[str] = None,
                     symbol: Optional[str] = None) -> "RelaxError":
        if self.binding is None and binding is not None:
            self.binding = binding
        if self.function is None and function is not None:
            self.function = function
        if self.symbol is None and symbol is not None:
            self.symbol = symbol
        return self

    def __str__(self) -> str:
        head = f"{self.span}: " if self.span is not None and self.span.line > 0 else ""
        ctx = []
        if self.function:
            ctx.append(f"in function '{self.function}'")
        if self.binding:
            ctx.append(f"binding '{self.binding}'")
        if self.symbol:
            ctx.append(f"symbolic variable '{self.symbol}'")
        text = f"{head}{type(self).__name__}: {self.message}"
        if ctx:
            text += f" ({', '.join(ctx)})"
        if self.span is not None:
            snip = self.span.snippet()
            if snip:
                text += "\n" + snip
        return text


class ParseError(RelaxError):
    """The text is not valid TVMScript for relax-ref (malformed input, or a forbidden construct)."""

    kind = "parse"


class WellFormedError(RelaxError):
    """The program violates a well-formedness rule (spec chapter WF)."""

    kind = "well_formed"


class StructInfoError(RelaxError):
    """Static struct-info inference or an annotation check failed (spec chapter SI / OP pages)."""

    kind = "struct_info"


class UnsupportedError(RelaxError):
    """A construct relax-ref recognises but does not implement. Never a silent fallback."""

    kind = "unsupported"


# ---------------------------------------------------------------------------------------------------
# Run-time errors (raised by the interpreter and the executors)
# ---------------------------------------------------------------------------------------------------


class RelaxRuntimeError(RelaxError):
    """Base of errors raised while evaluating a program."""

    kind = "runtime"


class StructInfoMismatchError(RelaxRuntimeError):
    """A run-time struct-info check failed (EVAL.CHECK.*).

    ``site`` says where: ``"param"``, ``"return"``, ``"match_cast"`` or ``"call_tir"``; ``expected``
    is the annotation with bound symbolic values substituted, ``actual`` a description of the value.
    """

    kind = "struct_info_mismatch"

    def __init__(self, message: str, span: Optional[Span] = None, *, site: Optional[str] = None,
                 expected: Optional[str] = None, actual: Optional[str] = None, **kw) -> None:
        super().__init__(message, span, **kw)
        self.site = site
        self.expected = expected
        self.actual = actual


class TypeMismatchError(StructInfoMismatchError):
    """The value is of the wrong kind (a shape where a tensor was expected, ...)."""

    kind = "type_mismatch"


class ShapeMismatchError(StructInfoMismatchError):
    """A dimension differs from a constant, from an earlier binding of a symbolic variable, or
    from the value of a shape expression."""

    kind = "shape_mismatch"


class NDimMismatchError(ShapeMismatchError):
    """The rank of a tensor or shape differs from the annotation."""

    kind = "ndim_mismatch"


class DTypeMismatchError(StructInfoMismatchError):
    """The element type of a tensor or prim value differs from the annotation."""

    kind = "dtype_mismatch"


class ArityMismatchError(StructInfoMismatchError):
    """A tuple has the wrong number of fields, or a call the wrong number of arguments."""

    kind = "arity_mismatch"


class ValueMismatchError(StructInfoMismatchError):
    """A prim value differs from the value required by ``R.Prim(value=...)``."""

    kind = "value_mismatch"


class TIRBoundsError(RelaxRuntimeError):
    """A TensorIR buffer access is out of bounds (TIR.BOUNDS.1). TVM would corrupt memory."""

    kind = "out_of_bounds"

    def __init__(self, message: str, span: Optional[Span] = None, *, buffer: Optional[str] = None,
                 indices: Optional[tuple] = None, shape: Optional[tuple] = None, **kw) -> None:
        super().__init__(message, span, **kw)
        self.buffer = buffer
        self.indices = indices
        self.shape = shape


class DivisionByZeroError(RelaxRuntimeError):
    """Integer division or modulo by zero (TVM's process dies with SIGFPE; we raise)."""

    kind = "division_by_zero"


class AssertionFailedError(RelaxRuntimeError):
    """``R.assert_op`` or a TensorIR ``T.Assert`` evaluated to false."""

    kind = "assert_failed"


class PackedFuncError(RelaxRuntimeError):
    """An external (packed) function is unknown or failed."""

    kind = "packed_func"


class OpRuntimeError(RelaxRuntimeError):
    """An operator rejected its run-time operands (e.g. a data-dependent index out of range)."""

    kind = "op_runtime"


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` naming the closest of ``known`` to a misspelled ``name`` (ERR.1: an
    error says what to write instead), or ``""`` when none is close."""
    close = difflib.get_close_matches(name, sorted(set(known)), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def no_function(name: str, known: Iterable[str]) -> str:
    """The message for a call of a function the module does not have."""
    return f"module has no function named '{name}'{did_you_mean(name, known)}"


class LimitExceededError(RelaxRuntimeError):
    """A run-time limit of RUNTIME.LIMIT.*: a size, extent, index or integer outside the int64 range
    (or an integer outside its dtype's range), an allocation beyond the byte budget ``max_bytes``, or
    TensorIR loops beyond the step budgets ``max_steps`` and ``max_while_steps``, Relax calls nested
    beyond ``max_depth``. ``limit`` names the limit (``"int64"``, ``"dtype"``, ``"max_bytes"``,
    ``"max_steps"``, ``"max_while_steps"``, ``"max_depth"``) and ``value`` the offending value."""

    kind = "limit_exceeded"

    def __init__(self, message: str, span: Optional[Span] = None, *, limit: Optional[str] = None,
                 value: Optional[int] = None, **kw) -> None:
        super().__init__(message, span, **kw)
        self.limit = limit
        self.value = value


__all__ = [
    "did_you_mean",
    "no_function",
    "Span",
    "RelaxError",
    "ParseError",
    "WellFormedError",
    "StructInfoError",
    "UnsupportedError",
    "RelaxRuntimeError",
    "StructInfoMismatchError",
    "TypeMismatchError",
    "ShapeMismatchError",
    "NDimMismatchError",
    "DTypeMismatchError",
    "ArityMismatchError",
    "ValueMismatchError",
    "TIRBoundsError",
    "DivisionByZeroError",
    "AssertionFailedError",
    "PackedFuncError",
    "OpRuntimeError",
    "LimitExceededError",
]
