"""The TVMScript parser: text (classic, TVM 0.25 or TVM 0.27 dialect, even mixed) -> relax-ref IR, safe by
construction.

Public API
==========

``parse_module(text, *, file="<string>", line_offset=0) -> IRModule``
    Raw IR as described by the parser/normalizer contract (no ANF, struct info only where written).
``parse(text, *, file="<string>", normalize=True, check_well_formed=True) -> IRModule``
    ``parse_module`` followed by :func:`relax_ref.static.normalize.normalize_module` and, when the
    module is normalized and the text does not say ``check_well_formed=False`` in its top-level
    decorator, :func:`relax_ref.static.well_formed.check_well_formed`.
``parse_file(path, **kw) -> IRModule``
    ``parse`` of a file's contents (``file`` defaults to the path).
``parse_function(text, *, file="<string>", line_offset=0, normalize=True, check_well_formed=True)``
    The single ``Function`` / ``PrimFunc`` of a text holding one function (standalone or in a module).

The text is data (TEXT.SAFE.1): it is read with :func:`ast.parse` only and walked with a whitelist
evaluator; imports are recognised, never executed; every name must be a TVMScript construct or a
variable in scope. Every problem is a :class:`~relax_ref.errors.ParseError` with a span.
"""

from __future__ import annotations

import os
from typing import Mapping, Optional, Union

from ...errors import ParseError
from ...ir.expr import Function
from ...ir.module import IRModule
from ...ir.tir import PrimFunc
from .module import ParseResult, parse_source
from .source import Source


def _run(src: Source, extra_aliases: Optional[Mapping[str, str]] = None,
         global_decls: Optional[Mapping[str, str]] = None, decorator_options: bool = False) -> ParseResult:
    if not isinstance(src.text, str):
        raise ParseError(f"TVMScript text must be a str, got {type(src.text).__name__}")
    try:
        return parse_source(src, extra_aliases=extra_aliases, global_decls=global_decls,
                            decorator_options=decorator_options)
    except RecursionError:
        raise ParseError("the text is nested too deeply to be parsed", src.span_at(1, 0)) from None


def _post(res: ParseResult, normalize: bool, check_well_formed: bool) -> IRModule:
    mod = res.module
    if normalize:
        from ...static.normalize import normalize_module

        mod = normalize_module(mod, unit_statements=res.unit_statements)
        if mod.source_span is None and res.module.source_span is not None:
            object.__setattr__(mod, "source_span", res.module.source_span)  # IRModule is otherwise immutable
        if check_well_formed and res.check_well_formed:
            from ...static.well_formed import check_well_formed as _check

            _check(mod)
    if not res.check_well_formed:
        object.__setattr__(mod, "check_well_formed", False)     # printed back (TEXT.MOD.3)
    return mod


def parse_module(text: str, *, file: str = "<string>", line_offset: int = 0) -> IRModule:
    """Parse TVMScript text into raw (un-normalized) IR."""
    return _run(Source(text, file, line_offset)).module


def parse(text: str, *, file: str = "<string>", normalize: bool = True,
          check_well_formed: bool = True) -> IRModule:
    """Parse, normalize and check TVMScript text (see the module docstring)."""
    return _post(_run(Source(text, file)), normalize, check_well_formed)


def parse_file(path: Union[str, os.PathLike], **kw) -> IRModule:
    """``parse`` of the contents of ``path``."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    kw.setdefault("file", os.fspath(path))
    return parse(text, **kw)


def _single(res: ParseResult, mod: IRModule, src: Source) -> Union[Function, PrimFunc]:
    if len(res.function_names) != 1:
        raise ParseError(f"expected exactly one function, the text defines {len(res.function_names)}",
                         src.span_at(1, 0))
    return mod[res.function_names[0]]


def parse_function(text: str, *, file: str = "<string>", line_offset: int = 0, normalize: bool = True,
                   check_well_formed: bool = True) -> Union[Function, PrimFunc]:
    """The one function of ``text`` (a lone ``@R.function`` / ``@T.prim_func``, or a module holding a
    single function); it is wrapped in a module named by the function for normalization."""
    src = Source(text, file, line_offset)
    res = _run(src)
    return _single(res, _post(res, normalize, check_well_formed), src)


def parse_snippet(src: Source, *, extra_aliases: Optional[Mapping[str, str]] = None,
                  global_decls: Optional[Mapping[str, str]] = None, normalize: bool = True,
                  check_well_formed: bool = True, decorator_options: bool = False) -> ParseResult:
    """Parse a :class:`Source` (used by the decorators, which cut the text out of a file); the result's
    module is normalized/checked as requested. ``decorator_options`` admits the decorators' extra
    ``normalize=`` option in the text."""
    res = _run(src, extra_aliases, global_decls, decorator_options)
    mod = _post(res, normalize, check_well_formed)
    return ParseResult(mod, res.check_well_formed, res.function_names, res.unit_statements)


__all__ = ["parse_module", "parse", "parse_file", "parse_function", "parse_snippet", "Source", "ParseError"]
