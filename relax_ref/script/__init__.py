"""TVMScript for relax-ref: the parser (:mod:`.parser`), the printer (:mod:`.printer`) and the
decorator namespaces ``ir`` / ``relax`` / ``tir`` (``from relax_ref.script import ir as I, relax as
R, tir as T``)."""

from . import ir, relax, tir
from .parser import parse, parse_file, parse_function, parse_module

__all__ = ["ir", "relax", "tir", "parse", "parse_file", "parse_function", "parse_module"]
