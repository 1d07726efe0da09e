"""Printing of whole modules and single functions (spec rules TEXT.MOD.*).

Layout, as TVM prints it: the optional metadata line, the header comment naming the namespaces
used (``# from tvm.script import ir as I`` / ``tir as T`` (classic) or ``tirx as T`` (tvm) /
``relax as R``), a blank line, then ``@I.ir_module`` ``class Module:`` holding
``I.module_attrs({...})``, ``I.module_global_infos({...})`` and the functions separated by blank
lines: PrimFuncs first, then ExternFuncs (``name = R.ExternFunc("symbol")``), then Relax functions,
each group sorted by name, with ``main`` last (TEXT.MOD.5). There is no trailing newline.
``source_order=True`` keeps the module's own order instead (a parsed module's is the text's): a text's
function order decides what a call of a later function without a return annotation is
(NORM.GLOBAL.4), so translating a text to another dialect must keep it.
"""

from __future__ import annotations

from typing import List, Optional, Union

from ...errors import UnsupportedError
from ...ir import expr as rx
from ...ir import tir
from ...ir.module import IRModule
from ...ir.distributed import DeviceMesh
from ...ir.struct_info import VDevice
from ._format import format_str
from .context import PrintContext
from .dialect import get_dialect
from .metadata import metadata_header
from .relax import RelaxPrinter, indent
from .scalar_args import scalars_before_outputs
from .tir import TIRPrinter


def _priority(name: str, func) -> int:
    if name == "main":
        return 1000
    if isinstance(func, tir.PrimFunc):
        return 1
    if isinstance(func, rx.ExternFunc):
        return 2
    return 3


def _header(ctx: PrintContext) -> List[str]:
    lines = list(ctx.dialect.header_first) if ctx.typevars or ctx.nested_typevars else []
    if "I" in ctx.used_ns:
        lines.append("# from tvm.script import ir as I")
    if "T" in ctx.used_ns:
        lines.append(f"# from tvm.script import {ctx.dialect.tir_module} as T")
        lines += list(ctx.dialect.header_extra)
    if "R" in ctx.used_ns:
        lines.append("# from tvm.script import relax as R")
    return lines


def _finish(ctx: PrintContext, lines: List[str]) -> str:
    head = _header(ctx)
    # tvm-0.27: the symbols of the signatures, declared at the top level (TEXT.DIALECT.3)
    decls = [f'{n} = TypeVar("{n}")' for n in sorted(ctx.typevars)]
    text = "\n".join(head + [""] + decls + lines) if head else "\n".join(decls + lines)
    if ctx.metadata_constants:
        text = metadata_header([c.data for c in ctx.metadata_constants], ctx.dialect) + "\n" + text
    return text


def _global_info(ctx: PrintContext, relax: RelaxPrinter, v) -> str:
    if isinstance(v, VDevice):
        return f"I.vdevice({format_str(v.kind)}, {int(v.vdevice_id)}, {format_str(v.memory_scope)})"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_global_info(ctx, relax, x) for x in v) + "]"
    if isinstance(v, DeviceMesh):
        return relax.sinfo.mesh(v, in_module_infos=True)
    return relax.attr(v)


def _function_lines(ctx: PrintContext, relax: RelaxPrinter, tirp: TIRPrinter, name: str, func,
                    top_level: bool = True) -> List[str]:
    if isinstance(func, rx.Function):
        return relax.function(func, name, top_level=top_level)
    if isinstance(func, tir.PrimFunc):
        return tirp.prim_func(func, name)
    if isinstance(func, rx.ExternFunc):
        return [f"{name} = {relax.expr(func)}"]
    raise UnsupportedError(f"cannot print a module function of type {type(func).__name__}")


def print_module(mod: IRModule, *, dialect: str = "classic", show_meta: bool = False,
                 module_name: str = "Module", source_order: bool = False, exact: bool = False) -> str:
    """TVMScript text of ``mod`` (see the module docstring for the layout). ``exact=True``: what the
    dialect cannot express (the value of an ``R.Prim(value=...)`` annotation in tvm-0.27) is an
    :class:`~relax_ref.errors.UnsupportedError` instead of being left out (TEXT.DIALECT.5)."""
    d = get_dialect(dialect)
    if not d.tir_vars:
        mod = scalars_before_outputs(mod, d.name)  # tvm-0.27's call_tir form (TEXT.DIALECT.5)
    text, ctx = _print_module(mod, d, show_meta, module_name, set(), source_order, exact)
    if (ctx.typevars or ctx.redeclared) and d.typevar_symbols:
        # again, with the TypeVar names known, so that symbols declared in bodies avoid them, and with
        # the nested signatures' symbols that their enclosing function uses too declared there
        text, _ = _print_module(mod, d, show_meta, module_name, set(ctx.typevars), source_order, exact,
                                set(ctx.redeclared))
    return text


def _print_module(mod: IRModule, d, show_meta: bool, module_name: str, typevar_names, source_order: bool,
                  exact: bool = False, enclosing_symbols=frozenset()):
    ctx = PrintContext(d, show_meta=show_meta, module=mod, module_name=module_name)
    ctx.exact = exact
    ctx.typevar_names = typevar_names
    ctx.enclosing_symbols = set(enclosing_symbols)
    ctx.used_ns.add("I")
    relax = RelaxPrinter(ctx)
    tirp = TIRPrinter(ctx)
    body: List[str] = []
    if mod.attrs:
        body.append(f"I.module_attrs({relax.attr(mod.attrs)})")
    if mod.global_infos:
        items = sorted(mod.global_infos.items())
        body.append("I.module_global_infos({" + ", ".join(
            f"{format_str(k)}: {_global_info(ctx, relax, v)}" for k, v in items) + "})")
    funcs = list(mod.functions_items())
    if not source_order:
        funcs.sort(key=lambda gf: (_priority(gf[0].name_hint, gf[1]), gf[0].name_hint))
    prev_def = False
    for gv, func in funcs:
        is_def = not isinstance(func, rx.ExternFunc)
        if prev_def and is_def:
            body.append("")  # TVM separates consecutive function definitions by a blank line
        body += _function_lines(ctx, relax, tirp, gv.name_hint, func)
        prev_def = is_def
    if not body:
        body = ["pass"]
    deco = "@I.ir_module" if getattr(mod, "check_well_formed", True) else "@I.ir_module(check_well_formed=False)"
    return _finish(ctx, [deco, f"class {module_name}:"] + indent(body)), ctx


def print_function(func: Union[rx.Function, tir.PrimFunc], name: Optional[str] = None, *,
                   dialect: str = "classic", show_meta: bool = False) -> str:
    """TVMScript text of one Relax function or PrimFunc (named ``name``, else its
    ``global_symbol``, else ``main``). References to globals print as bare names."""
    ctx = PrintContext(get_dialect(dialect), show_meta=show_meta)
    relax = RelaxPrinter(ctx)
    tirp = TIRPrinter(ctx)
    if name is None:
        name = func.attrs.get("global_symbol") or "main"
    return _finish(ctx, _function_lines(ctx, relax, tirp, name, func, top_level=True))


__all__ = ["print_module", "print_function"]
