"""Helpers shared by the parser tests: operators the registry does not know parse as test-only calls
that record their positional arguments and keyword attributes."""

from relax_ref.errors import ParseError
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.attrs import Attrs
from relax_ref.ops import registry


def as_test_expr(v):
    """A Python argument of a test-only operator as a Relax expression."""
    if isinstance(v, rx.Expr):
        return v
    if isinstance(v, (tuple, list)):
        return rx.Tuple(tuple(as_test_expr(x) for x in v))
    if isinstance(v, P.PrimExpr):
        return rx.PrimValue(v)
    if isinstance(v, (bool, int)):
        return rx.PrimValue(P.IntImm(int(v), "int64"))
    raise ParseError(f"test op: cannot convert {v!r}")


def record_call(opdef, args, kwargs, span, skip_none=False):
    """A test-only operator's call: keyword struct infos become ``sinfo_args``, other keywords
    attributes (``skip_none``: positional ``None`` arguments are left out)."""
    sinfo, attrs = [], {}
    for k, v in kwargs.items():
        items = v if isinstance(v, (list, tuple)) else [v]
        if items and all(isinstance(x, si.StructInfo) for x in items):
            sinfo.extend(items)
        else:
            attrs[k] = v
    args = tuple(as_test_expr(a) for a in args if not (skip_none and a is None))
    return rx.Call(rx.Op(opdef.name), args, Attrs(attrs), tuple(sinfo), span=span)


def parse_unknown_ops_with(monkeypatch, parse_call):
    """Make the parser accept operators the registry does not know, built by ``parse_call``."""
    real = registry.lookup_script

    def lookup(name):
        d = real(name)
        if d is None:
            d = registry.OpDef("relax." + name[2:], name, parse_call=parse_call)
        return d

    monkeypatch.setattr(registry, "lookup_script", lookup)
