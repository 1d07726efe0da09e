"""Structural equality and hashing as TVM defines them (spec rules EXPR.EQ.1-EXPR.EQ.4).

Both sides are serialized to a canonical token stream; two objects are equal iff their streams
are equal. Variables are replaced by the position of their definition in the stream, so names do
not matter and the correspondence between the two sides' variables is a bijection:

* Relax ``Var``/``DataflowVar``: defined by function parameters, bindings, ``MatchCast`` and If
  branch bindings; the var kind and its struct info annotation are part of the comparison.
* Symbolic ``PrimVar``s: defined at their first occurrence in a parameter's struct info, a
  ``MatchCast`` struct info or the parameters of an ``R.Callable``; in TensorIR by PrimFunc
  parameters, loop and block iteration variables, lets, and buffer declarations (shape, strides,
  offset and data pointer of ``buffer_map`` / allocated / matched / declared buffers).
* ``Buffer``s: defined by their declaration (``buffer_map``, block ``alloc_buffers`` and
  ``match_buffers``, ``AllocBuffer``, ``DeclBuffer``) or, for a view over a data variable already
  defined, by their first use; names are ignored.

Anything else used before a definition is *free*: it must be the very same object on both sides,
unless ``map_free_vars=True`` (then free variables are matched in order of appearance, as TVM does).

Like TVM's ``StructuralEqual`` (EXPR.EQ.3), the comparison ignores every name hint (Relax and
symbolic variables, TIR variables, buffers and TIR block names), spans, the struct info of
expressions other than variables, the key order of attribute maps and the order of a module's
functions. ``strict=True`` also compares TIR block names.

Other rules: IRModules match functions by name and compare module attributes and global infos;
``GlobalVar``s compare by name; ``Constant``s by dtype, shape and exact bytes, with any NaN equal to
any NaN; floats are NaN-aware. Representation details the text format does not preserve are not
significant (EXPR.EQ.2): boundaries between adjacent non-dataflow binding blocks and empty
non-dataflow blocks; nesting of ``SeqStmt``s and one-element ``SeqStmt``s; the ``tir.``/``tirx.``
prefix of intrinsic names and of PrimFunc attribute keys; and the PrimFunc attribute ``s_tir``
(TVM 0.25's marker for block-based parsing, implied by the body). Where this differs from TVM is
listed in DIV.EQ.1.

Objects of other libraries (a ``tvm.IRModule`` for example) are rejected with a
:class:`~relax_ref.errors.TypeMismatchError` naming their type (EXPR.EQ.4); ``relax_ref.structural_equal``
converts TVM modules first. :mod:`.structural_report` renders mismatches.
"""

from __future__ import annotations

from typing import Optional

from .structural_report import describe_mismatch, mismatch_report
from .structural_serialize import StructuralMismatchError, check_foreign, serialize, tracked


def structural_equal(a, b, *, map_free_vars: bool = False, strict: bool = False) -> bool:
    """True iff ``a`` and ``b`` (modules, functions, expressions, struct info, PrimFuncs,
    statements, scalar expressions, attribute values) are equal as TVM's ``StructuralEqual``
    defines it (EXPR.EQ.3): up to renaming of bound variables, ignoring name hints and spans.
    ``strict=True`` also compares TIR block names. Objects of other libraries raise
    :class:`~relax_ref.errors.TypeMismatchError` (EXPR.EQ.4)."""
    check_foreign(a, "structural_equal")
    check_foreign(b, "structural_equal")
    if a is b:
        return True
    return serialize(a, map_free_vars, strict).tokens == serialize(b, map_free_vars, strict).tokens


def first_mismatch(a, b, *, map_free_vars: bool = False, strict: bool = False):
    """None when equal, else ``(k, lhs, rhs)``: the index of the first differing token and both
    sides' tracking serializers, run up to it."""
    if structural_equal(a, b, map_free_vars=map_free_vars, strict=strict):
        return None
    ta = serialize(a, map_free_vars, strict).tokens
    tb = serialize(b, map_free_vars, strict).tokens
    n = min(len(ta), len(tb))
    k = next((i for i in range(n) if ta[i] != tb[i]), n)
    return k, tracked(a, map_free_vars, strict, k), tracked(b, map_free_vars, strict, k)


def first_difference(a, b, *, map_free_vars: bool = False, strict: bool = False) -> Optional[str]:
    """None when equal, else a one-paragraph message: the path of the first difference in words
    and what each side has there."""
    found = first_mismatch(a, b, map_free_vars=map_free_vars, strict=strict)
    return None if found is None else describe_mismatch(*found)[0]


def assert_structural_equal(a, b, *, map_free_vars: bool = False, strict: bool = False) -> None:
    """Raise :class:`StructuralMismatchError` (an AssertionError) unless ``structural_equal(a, b)``,
    with a readable report: the path of the first difference in words, what each side has there,
    and both functions printed with the differing line marked."""
    found = first_mismatch(a, b, map_free_vars=map_free_vars, strict=strict)
    if found is not None:
        raise mismatch_report(a, b, *found, map_free_vars=map_free_vars, strict=strict)


def structural_hash(x, *, map_free_vars: bool = False, strict: bool = False) -> int:
    """A hash consistent with :func:`structural_equal` (within one process: free variables
    that are not mapped hash by identity)."""
    check_foreign(x, "structural_hash")
    return hash(tuple(serialize(x, map_free_vars, strict).tokens))


__all__ = ["structural_equal", "assert_structural_equal", "structural_hash", "first_difference",
           "first_mismatch", "StructuralMismatchError"]
