"""From Relax call arguments to a TE kernel and back (TIR.TE.BRIDGE), as TVM's ``bb.call_te``.

:func:`gen_call_tir_inputs` converts the Relax arguments of a legalized call into TE inputs, runs the
TE function, builds the PrimFunc and returns what a ``call_tir`` needs. Conversion rules:

1. A Relax expression with ``TensorStructInfo`` becomes a :func:`~relax_ref.ops.te.placeholder`. Its
   shape must be a ``ShapeExpr`` (RelaxError otherwise). The placeholder is named after the Relax
   variable (``x``), or ``A``, ``B``, ... by position for other expressions (e.g. constants), and the
   expression becomes a ``call_tir`` argument (TIR.TE.BRIDGE.1).
2. Symbolic variables of the caller are replaced by fresh PrimFunc-local variables of the same name
   and dtype, so that the kernel does not share variables with the Relax function; output shapes are
   mapped back (TIR.TE.BRIDGE.2).
3. A ``ShapeExpr`` argument becomes the list of its (substituted) values; a ``PrimValue`` (or any
   expression with ``PrimStructInfo`` carrying a value) becomes its value; an expression with
   ``R.Prim(dtype)`` and no known value becomes a scalar PrimFunc parameter (named after the
   variable, or ``a``, ``b``, ... by position) and a ``call_tir`` argument. PrimExprs are
   substituted; lists, tuples and dicts are converted element-wise; ints, floats, strings and None
   pass through (TIR.TE.BRIDGE.3).
4. Variables used by the kernel (in shapes or scalar arguments) that no tensor dimension or scalar
   parameter defines are appended as trailing scalar parameters and passed through ``tir_vars``
   (TIR.TE.BRIDGE.4).
5. The output struct info is ``R.Tensor(out.shape, out.dtype)`` per TE output (with the vdevice of the
   first tensor argument that has one) (TIR.TE.BRIDGE.5).
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import struct_info as si
from ..ir import tir
from ..ir.functor import prim_vars_in, substitute_prim
from . import te


@dataclass
class CallTIRInputs:
    """The pieces of a ``call_tir``: the kernel, its Relax arguments, the output struct infos and
    the optional ``tir_vars`` shape."""

    func: tir.PrimFunc
    args: Tuple[rx.Expr, ...]
    out_sinfo: Tuple[si.TensorStructInfo, ...]
    tir_vars: Optional[rx.ShapeExpr]


def gen_call_tir_inputs(fte: Callable[..., Any], args: Sequence[Any],
                        kwargs: Optional[Dict[str, Any]] = None, release: Optional[str] = None) -> CallTIRInputs:
    """Apply ``fte`` to the converted ``args``/``kwargs`` and build the call's pieces (see module
    docstring), the kernel in the form of TVM ``release`` (PASS.RELEASE.1). ``fte`` returns a
    :class:`te.Tensor` or a sequence of them."""
    conv = _Converter()
    te_args = conv.convert(list(args))
    te_kwargs = conv.convert(dict(kwargs or {}))
    out = fte(*te_args, **te_kwargs)
    outs = [out] if isinstance(out, te.Tensor) else list(out) if isinstance(out, (list, tuple)) else None
    if not outs or not all(isinstance(t, te.Tensor) for t in outs):
        raise RelaxError("a TE legalization must return a te.Tensor or a sequence of te.Tensors")

    bound: Dict[P.PrimVar, None] = {}
    used: Dict[P.PrimVar, None] = {}
    for a in conv.prim_args + outs:
        if isinstance(a, te.Tensor):
            for d in a.shape:
                prim_vars_in(d, used)
                if isinstance(d, P.PrimVar):
                    bound.setdefault(d, None)
        else:
            bound.setdefault(a, None)
            used.setdefault(a, None)
    for e in conv.extra:
        prim_vars_in(e, used)
    unbound = [v for v in used if v not in bound]

    func = te.create_prim_func(list(conv.prim_args) + outs + unbound, release=release)
    inverse = {new: old for old, new in conv.var_map.items()}
    vdevice = conv.vdevice
    out_sinfo = tuple(
        si.TensorStructInfo(rx.ShapeExpr(tuple(substitute_prim(d, inverse) for d in t.shape)), t.dtype,
                            vdevice=vdevice)
        for t in outs)
    tir_vars = rx.ShapeExpr(tuple(substitute_prim(v, inverse) for v in unbound)) if unbound else None
    return CallTIRInputs(func, tuple(conv.call_args), out_sinfo, tir_vars)


class _Converter:
    def __init__(self) -> None:
        self.var_map: Dict[P.PrimVar, P.PrimVar] = {}
        self.prim_args: List[Any] = []  # te.Tensor | PrimVar, in parameter order
        self.call_args: List[rx.Expr] = []
        self.extra: List[P.PrimExpr] = []
        self.vdevice = None

    def _copy_vars(self, e: P.PrimExpr) -> P.PrimExpr:
        for v in prim_vars_in(e):
            if v not in self.var_map:
                self.var_map[v] = P.PrimVar(v.name, v.dtype)
        return substitute_prim(e, self.var_map)

    def convert(self, a: Any) -> Any:
        if isinstance(a, rx.Expr):
            return self._expr(a)
        if isinstance(a, P.PrimExpr):
            e = self._copy_vars(a)
            self.extra.append(e)
            return e
        if isinstance(a, list):
            return [self.convert(x) for x in a]
        if isinstance(a, tuple):
            return tuple(self.convert(x) for x in a)
        if isinstance(a, dict):
            return {k: self.convert(v) for k, v in a.items()}
        if a is None or isinstance(a, (bool, int, float, str)):
            return a
        raise RelaxError(f"cannot pass a {type(a).__name__} to a TE legalization")

    def _expr(self, e: rx.Expr) -> Any:
        s = e.struct_info
        if isinstance(s, si.TensorStructInfo):
            if not isinstance(s.shape, rx.ShapeExpr):
                raise RelaxError("a TE legalization needs tensor arguments whose shape is a ShapeExpr",
                                 e.span)
            if s.dtype == "void":
                raise RelaxError("a TE legalization needs tensor arguments of known dtype", e.span)
            shape = [self._copy_vars(d) for d in s.shape.values]
            n = len(self.prim_args)
            if isinstance(e, rx.Var):
                name = e.name_hint
            elif n < 26:
                name = string.ascii_uppercase[n]
            else:
                name = f"tensor_input_{n}"
            t = te.placeholder(shape, s.dtype, name)
            if self.vdevice is None and s.vdevice is not None:
                self.vdevice = s.vdevice
            self.prim_args.append(t)
            self.call_args.append(e)
            return t
        if isinstance(s, si.ShapeStructInfo):
            if not isinstance(e, rx.ShapeExpr):
                raise RelaxError("a TE legalization accepts shapes only as ShapeExpr literals", e.span)
            return [self.convert(v) for v in e.values]
        if isinstance(s, si.PrimStructInfo):
            if s.value is None:
                n = len(self.prim_args)
                if isinstance(e, rx.Var):
                    name = e.name_hint
                elif n < 26:
                    name = string.ascii_lowercase[n]
                else:
                    name = f"scalar_input_{n}"
                v = P.PrimVar(name, s.dtype)
                self.prim_args.append(v)
                self.call_args.append(e)
                return v
            return self.convert(s.value)
        raise RelaxError(f"cannot pass an expression with struct info {type(s).__name__} to a TE "
                         "legalization", e.span)


__all__ = ["CallTIRInputs", "gen_call_tir_inputs"]
