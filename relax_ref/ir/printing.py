"""How IR nodes reach the TVMScript printer and parser without importing them (the IR sits below
the script layer).

``IRModule.script()`` and ``str(struct_info)`` ask :func:`printer` for the printer package; the
structural-mismatch report (``relax_ref.analysis.structural_report``) also asks :func:`reader` for
the parser's ``parse`` to read a printed module back. The package ``relax_ref`` names both once with
:func:`set_printer` / :func:`set_reader` when it is first imported, which happens before any of its
modules is used; the script modules themselves are imported on first use.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ..errors import UnsupportedError

_PROVIDER: Optional[Callable[[], Any]] = None
_READER: Optional[Callable[[], Any]] = None


def set_printer(provider: Callable[[], Any]) -> None:
    """``provider()`` returns the printer package (``print_module``, ``struct_info_to_str``,
    ``expr_to_str``, ``stmt_to_str``)."""
    global _PROVIDER
    _PROVIDER = provider


def printer() -> Any:
    if _PROVIDER is None:
        raise UnsupportedError("no TVMScript printer is installed (import relax_ref)")
    return _PROVIDER()


def set_reader(provider: Callable[[], Any]) -> None:
    """``provider()`` returns the parser's ``parse(text, **kwargs) -> IRModule``."""
    global _READER
    _READER = provider


def reader() -> Any:
    if _READER is None:
        raise UnsupportedError("no TVMScript parser is installed (import relax_ref)")
    return _READER()


__all__ = ["set_printer", "printer", "set_reader", "reader"]
