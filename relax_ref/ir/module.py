"""IRModule: an ordered map from GlobalVar to Relax ``Function``, TIR ``PrimFunc`` or ``ExternFunc``
(spec rule MOD.1), plus module attributes and global infos (``vdevice``)."""

from __future__ import annotations

from typing import Iterator, Mapping, Optional, Union

from ..errors import WellFormedError
from . import printing
from .attrs import EMPTY, Attrs
from .expr import ExternFunc, Function, GlobalVar
from .tir import PrimFunc

FuncLike = Union[Function, PrimFunc, ExternFunc]


class IRModule(Mapping):
    """Immutable. Iterating yields function names in insertion order; ``mod["main"]`` returns the
    function; ``mod.get_global_var("main")`` the GlobalVar that calls refer to."""

    __slots__ = ("_gvars", "_funcs", "attrs", "global_infos", "source_span", "check_well_formed", "__weakref__")

    def __init__(self, functions: Optional[Mapping[GlobalVar, FuncLike]] = None,
                 attrs: Optional[Mapping] = None, global_infos: Optional[Mapping] = None) -> None:
        gvars: dict = {}
        funcs: dict = {}
        for gv, fn in (functions or {}).items():
            if not isinstance(gv, GlobalVar):
                raise TypeError(f"IRModule keys must be GlobalVars, got {gv!r}")
            if gv.name_hint in gvars:
                raise WellFormedError(f"duplicate global function name '{gv.name_hint}'")
            gvars[gv.name_hint] = gv
            funcs[gv.name_hint] = fn
        object.__setattr__(self, "_gvars", gvars)
        object.__setattr__(self, "_funcs", funcs)
        object.__setattr__(self, "attrs", attrs if isinstance(attrs, Attrs) else Attrs(attrs or {}))
        object.__setattr__(self, "global_infos",
                           global_infos if isinstance(global_infos, Attrs) else Attrs(global_infos or {}))
        object.__setattr__(self, "source_span", None)
        #: False for a module parsed under ``@I.ir_module(check_well_formed=False)`` (TEXT.MOD.3): the
        #: printer writes the option back, so that the text reads back; like ``source_span``, not part
        #: of the module's structure (structural equality ignores it, transformations drop it)
        object.__setattr__(self, "check_well_formed", True)

    def __setattr__(self, key, value):
        raise AttributeError("IRModule is immutable; use with_function / without_function")

    # Mapping protocol over names
    def __getitem__(self, name: Union[str, GlobalVar]) -> FuncLike:
        if isinstance(name, GlobalVar):
            name = name.name_hint
        return self._funcs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._funcs)

    def __len__(self) -> int:
        return len(self._funcs)

    def __contains__(self, name) -> bool:
        if isinstance(name, GlobalVar):
            name = name.name_hint
        return name in self._funcs

    def get_global_var(self, name: str) -> GlobalVar:
        try:
            return self._gvars[name]
        except KeyError:
            raise KeyError(f"module has no function named '{name}'") from None

    def global_vars(self) -> list:
        return list(self._gvars.values())

    def functions_items(self):
        """``(GlobalVar, function)`` pairs in order."""
        return [(self._gvars[n], f) for n, f in self._funcs.items()]

    def relax_functions(self):
        return [(self._gvars[n], f) for n, f in self._funcs.items() if isinstance(f, Function)]

    def prim_funcs(self):
        return [(self._gvars[n], f) for n, f in self._funcs.items() if isinstance(f, PrimFunc)]

    # Functional updates
    def with_function(self, gv: Union[GlobalVar, str], func: FuncLike) -> "IRModule":
        """A new module with ``func`` added or replacing the one of the same name. A string name
        reuses the existing GlobalVar of that name or creates one."""
        if isinstance(gv, str):
            gv = self._gvars.get(gv) or GlobalVar(gv)
        items = {}
        replaced = False
        for n, f in self._funcs.items():
            if n == gv.name_hint:
                items[gv] = func
                replaced = True
            else:
                items[self._gvars[n]] = f
        if not replaced:
            items[gv] = func
        return IRModule(items, self.attrs, self.global_infos)

    def without_function(self, name: str) -> "IRModule":
        return IRModule({self._gvars[n]: f for n, f in self._funcs.items() if n != name},
                        self.attrs, self.global_infos)

    def with_attrs(self, attrs: Mapping) -> "IRModule":
        return IRModule(dict(self.functions_items()), attrs, self.global_infos)

    def script(self, dialect: str = "classic", **kwargs) -> str:
        """TVMScript text of the module in a dialect of ``relax_ref.script.dialect`` (``"classic"``,
        ``"tvm-0.25"``, ``"tvm-0.27"``; ``"tvm"`` is the newest)."""
        return printing.printer().print_module(self, dialect=dialect, **kwargs)

    def __repr__(self) -> str:
        return f"IRModule({', '.join(self._funcs)})"

    def __eq__(self, other) -> bool:  # identity; use structural_equal for structure
        return self is other

    def __hash__(self) -> int:
        return id(self)


__all__ = ["IRModule", "FuncLike", "EMPTY"]
