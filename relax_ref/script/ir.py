"""``from relax_ref.script import ir as I``: the ``@I.ir_module`` class decorator and inert markers.

``@I.ir_module`` (options ``check_well_formed=`` and relax-ref's ``normalize=``) parses the class's
source as a TVMScript module and returns the :class:`~relax_ref.ir.IRModule`. Statements of the class
body that Python runs at definition time (``I.module_attrs({...})``,
``I.module_global_infos({...})``, ``I.vdevice(...)``) are inert markers.
"""

from __future__ import annotations

from .parser.decorators import Marker, decorate


def ir_module(cls=None, *, check_well_formed: bool = True, normalize: bool = True):
    """Class decorator: parse an IRModule written in TVMScript (TEXT.1)."""

    def wrap(c):
        return decorate(c, normalize=normalize, want_function=False)

    return wrap(cls) if cls is not None else wrap


module_attrs = Marker("I.module_attrs")
module_global_infos = Marker("I.module_global_infos")
vdevice = Marker("I.vdevice")


def __getattr__(name: str) -> Marker:
    if name.startswith("_"):
        raise AttributeError(name)
    return Marker(f"I.{name}")


__all__ = ["ir_module", "module_attrs", "module_global_infos", "vdevice"]
