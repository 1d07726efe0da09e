"""Shared state of one printing run: dialect, names, open function frames, metadata, module.

A Relax function frame collects the *declaration lines* printed at the top of the function body,
in TVM's order: ``n = T.int64()`` for the symbolic variables met while printing the signature,
then ``R.func_attr(...)``, then, in order of first use in the body, further ``a = T.int64()``
declarations and the module alias ``cls = Module`` (TEXT.FUNC.2). Like TVM, symbolic variables
and the alias are declared in the *outermost* function being printed, so a nested function may
use them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, List, Optional, Set

from ...ir import prim_expr as P
from .dialect import Dialect
from .names import NameTable, sanitize

if TYPE_CHECKING:  # pragma: no cover
    from ...ir.module import IRModule


@dataclass
class FuncFrame:
    """One Relax function being printed."""

    decls: List[str] = field(default_factory=list)
    name_level: int = 0
    alias_printed: bool = False
    #: tvm-0.27: TypeVar names a nested function's signature declares (printed before its definition)
    typevars: List[str] = field(default_factory=list)


class PrintContext:
    def __init__(self, dialect: Dialect, *, show_meta: bool = False, module: "Optional[IRModule]" = None,
                 module_name: str = "Module") -> None:
        self.dialect = dialect
        self.show_meta = show_meta
        self.module = module
        self.module_name = module_name
        self.names = NameTable()
        self.names.reserve(module_name)
        self.relax_funcs: List[FuncFrame] = []
        #: symbolic variables declared while printing the current signature, and its function
        self.signature_vars: Optional[Set[P.PrimVar]] = None
        self.sig_frame: Optional[FuncFrame] = None
        #: non-scalar constants printed as ``metadata["relax.expr.Constant"][i]``
        self.metadata_constants: list = []
        self._metadata_index: Dict[int, int] = {}
        #: namespaces used, for the header comment
        self.used_ns: Set[str] = set()
        #: tvm-0.27: names declared at the top level as ``n = TypeVar("n")`` (TEXT.DIALECT.3)
        self.typevars: Set[str] = set()
        #: the variables the top-level function being printed refers to (a unit binding of one of them
        #: cannot print as a bare expression statement)
        self.referenced: set = set()
        self.nested_typevars = False
        #: TypeVar names of the module (known after a first printing pass) that body symbols avoid
        self.typevar_names: Set[str] = set()
        #: tvm-0.27: symbols a nested function's signature introduces that its enclosing function also
        #: uses afterwards (found by a first printing pass): declared once, in the enclosing function
        self.enclosing_symbols: Set[P.PrimVar] = set()
        #: first pass: the symbols declared as a nested TypeVar, and those of them declared again later
        self.nested_typevar_vars: Set[P.PrimVar] = set()
        self.redeclared: Set[P.PrimVar] = set()
        #: tvm-0.27: symbolic variables that are a scalar parameter of the function being printed
        #: (``k: T.int64``), printed under that parameter's name
        self.param_symbols: Dict[P.PrimVar, str] = {}
        self.vdevices: tuple = ()
        #: refuse (UnsupportedError) to leave out what the dialect cannot express (print_module's exact)
        self.exact = False
        if module is not None:
            self.vdevices = tuple(module.global_infos.get("vdevice", ()))

    # -- Relax symbolic variables ----------------------------------------------------------------
    def relax_prim_var(self, v: P.PrimVar) -> str:
        """The printed name of a symbolic variable in a Relax context; declares it (``n =
        T.int64()``) at the top of the outermost function when first met."""
        name = self.names.get(v)
        if name is not None:
            return name
        if not self.relax_funcs:
            return sanitize(v.name)
        outer = self.relax_funcs[0]
        frame = self.sig_frame if self.signature_vars is not None and self.sig_frame is not None else outer
        # a symbol declared in a body must not take the name of a top-level TypeVar: TVM 0.27 refuses to
        # redeclare it (TEXT.DIALECT.3)
        avoid = self.typevar_names if self.signature_vars is None else ()
        in_signature = self.signature_vars is not None
        if in_signature and v in self.enclosing_symbols and frame is not outer:
            # tvm-0.27 reads a nested signature's name as the enclosing function's symbol; a TypeVar
            # declared before the nested definition would hide it from the enclosing function's later uses
            frame, avoid, in_signature = outer, self.typevar_names, False
        elif not in_signature and v in self.nested_typevar_vars:
            self.redeclared.add(v)
        name = self.names.define(v, v.name, level=frame.name_level, avoid=avoid)
        if in_signature:
            # a symbol a signature introduces belongs to that function (a nested one declares its own)
            self.signature_vars.add(v)
            if self.dialect.typevar_symbols and v.dtype == "int64":
                # tvm-0.27: a TypeVar, at the top level or before a nested definition (TEXT.DIALECT.3)
                if frame is outer:
                    self.typevars.add(name)
                else:
                    frame.typevars.append(name)
                    self.nested_typevars = True
                    self.nested_typevar_vars.add(v)
                return name
        self.used_ns.add("T")
        frame.decls.append(f"{name} = T.{v.dtype}()")
        return name

    def module_alias(self) -> str:
        """``cls``, declaring ``cls = Module`` in the outermost function on first use."""
        outer = self.relax_funcs[0]
        if not outer.alias_printed:
            outer.decls.append(f"cls = {self.module_name}")
            outer.alias_printed = True
        return "cls"

    # -- metadata ------------------------------------------------------------------------------
    def add_metadata_constant(self, const) -> int:
        key = id(const)
        if key not in self._metadata_index:
            self._metadata_index[key] = len(self.metadata_constants)
            self.metadata_constants.append(const)
        return self._metadata_index[key]


__all__ = ["PrintContext", "FuncFrame"]
