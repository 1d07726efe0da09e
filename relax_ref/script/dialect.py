"""The TVMScript dialects: one table saying which spelling belongs to which release (TEXT.DIALECT.1-5).

The parser reads every dialect of the table, even mixed in one text; the printer writes the one it
is asked for (``mod.script(dialect=...)``). The spellings differ; the IR they denote is the same,
except for what a release cannot express (TEXT.DIALECT.5).

=======================  ===========================  ===========================  ===========================
spelling                 classic                      tvm-0.25                     tvm-0.27
=======================  ===========================  ===========================  ===========================
TIR namespace            ``tir as T``                 ``tirx as T``                ``tirx as T``
blocks                   ``T.block``,                 ``T.sblock``,                as tvm-0.25
                         ``T.block_attr``,            ``T.sblock_attr``,
                         ``T.alloc_buffer`` in        ``T.sblock_alloc_buffer``,
                         blocks                       ``@T.prim_func(s_tir=True)``
integer division         ``T.truncdiv``               ``T.Div``                    ``T.Div``
TIR lets                 ``T.LetStmt`` / ``T.bind``   ``x: T.let[T.int32] = v``    as tvm-0.25
symbolic variables       ``R.Tensor(("n", 4))``       as classic                   module level
                         strings in signatures,                                    ``n = TypeVar("n")``, bare
                         ``n = T.int64()`` in body                                 names ``R.Tensor((n, 4))``
output struct info       ``out_sinfo=``               ``out_sinfo=``               ``out_ty=``
struct-info arguments    ``sinfo_args=``              ``sinfo_args=``              ``ty_args=``
calls spelled out        ``R.emit_with_sinfo``        as classic                   ``R.emit_with_ty``
any object               ``R.Object``                 ``R.Object``                 ``R.Any``
scalar annotations       ``R.Prim("int64")``          ``R.Prim("int64")``          ``T.int64``
scalar parameters        ``k: R.Prim(value="k")``     as classic                   ``k: T.int64`` (the
                                                                                   parameter is the symbol)
scalar values            ``R.prim_value(n + 1)``      as classic                   ``n + 1``
call_tir scalars         ``tir_vars=R.shape([n])``    as classic                   in the argument tuple,
                                                                                   before the outputs
metadata constants       ``relax.expr.Constant``      ``relax.expr.Constant``      ``ir.GenericConst``
header comment lines     --                           ``tvm.tirx.layout Axis``     ``typing TypeVar``,
                                                                                   ``tvm.tirx.layout Axis``
=======================  ===========================  ===========================  ===========================

Reading (TEXT.DIALECT.2): the spellings of every column are accepted everywhere. Where two releases
give the *same* text different meanings, the text's dialect decides (TEXT.DIALECT.4): a text that uses
any spelling only tvm-0.27 writes (:data:`TVM027_MARKERS`) is read as tvm-0.27 -- ``y = n + 1`` binds
a scalar value, ``R.prim_value(1.5)`` is ``float64``, a number passed to a Relax operand is a scalar
value -- otherwise as tvm-0.25 (``y = n + 1`` names a scalar expression, ``R.prim_value(1.5)`` is
``float32``).

``tvm`` names the newest supported release (:data:`NEWEST`); :func:`dialect_for_version` maps a TVM
release to the dialect it writes (TEXT.DIALECT.6). Adding a release is one :class:`Dialect` entry here
plus its cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Dict, Mapping, Optional, Tuple

from ..errors import UnsupportedError


@dataclass(frozen=True)
class Dialect:
    """The spelling of one TVMScript dialect (see the module docstring's table)."""

    name: str
    release: Optional[Tuple[int, int]]  # the first TVM release that writes it (None: before 0.25)
    tir_module: str             # the module imported as T in the header comment
    block: str                  # T.block / T.sblock
    block_alloc: str            # T.alloc_buffer / T.sblock_alloc_buffer (block-scoped allocation)
    block_attr: str             # T.block_attr / T.sblock_attr
    truncdiv: str               # integer Div node
    root_comment: str           # the implicit root block comment
    mark_s_tir: bool            # @T.prim_func(s_tir=True) for block-based functions
    tirx_lets: bool             # TIR lets as ``x: T.let[...] = v`` (no LetStmt, no T.allocate)
    header_extra: Tuple[str, ...] = ()  # extra header comment lines after the T import
    header_first: Tuple[str, ...] = ()  # header comment lines before the namespace imports
    typevar_symbols: bool = False       # module-level ``n = TypeVar("n")``, bare names in signatures
    out_sinfo_kw: str = "out_sinfo"     # keyword of call_tir's output struct info
    sinfo_args_kw: str = "sinfo_args"   # keyword of struct-info arguments
    emit_with_sinfo: str = "R.emit_with_sinfo"   # an operator call with struct-info arguments, spelled out
    object_sinfo: str = "R.Object"
    prim_annotation: str = "R.Prim"     # "R.Prim": R.Prim("int64"); "T": T.int64
    bare_prim_values: bool = False      # scalar values print bare (``n + 1``), not R.prim_value(...)
    tir_vars: bool = True               # call_tir(..., tir_vars=...) exists
    constant_key: str = "relax.expr.Constant"
    prim_value_float: str = "float32"   # dtype of ``R.prim_value(<Python float>)``
    prim_bindings: bool = False         # ``y = <scalar expression>`` binds a Relax scalar value
    #: TVM reads several assert_op format arguments only as a list, and an empty sinfo_args only written
    void_dtype_none: bool = False       # an unknown dtype attribute prints as None, not "void"
    list_format_args: bool = False
    explicit_empty_ty_args: bool = False
    #: a buffer used over another's data must be declared (``T.decl_buffer``): the release reads
    #: ``T.Buffer(..., data=A.data)`` in a body as no declaration
    declared_views: bool = False
    #: keywords of Relax calls the release does not take (printed only with a non-default value)
    removed_keywords: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)

    def translate_attr_key(self, key: str) -> str:
        """Spell a TensorIR function attribute key in this dialect (``tir.x`` <-> ``tirx.x``)."""
        if self.tir_module == "tirx" and key.startswith("tir."):
            return "tirx." + key[4:]
        if self.tir_module == "tir" and key.startswith("tirx."):
            return "tir." + key[5:]
        return key

    @property
    def is_tvm(self) -> bool:
        """Any TVM >= 0.25 dialect (``tirx`` namespace)."""
        return self.tir_module == "tirx"


CLASSIC = Dialect(
    name="classic",
    release=None,
    tir_module="tir",
    block="block",
    block_alloc="alloc_buffer",
    block_attr="block_attr",
    truncdiv="truncdiv",
    root_comment='# with T.block("root"):',
    mark_s_tir=False,
    tirx_lets=False,
)

TVM025 = Dialect(
    name="tvm-0.25",
    release=(0, 25),
    tir_module="tirx",
    block="sblock",
    block_alloc="sblock_alloc_buffer",
    block_attr="sblock_attr",
    truncdiv="Div",
    root_comment='# with T.sblock("root"):',
    mark_s_tir=True,
    tirx_lets=True,
    header_extra=("# from tvm.tirx.layout import Axis",),
    list_format_args=True,
    explicit_empty_ty_args=True,
    # keywords TVM 0.27 added: TVM 0.25's affine_grid always aligns the corners and its
    # multibox_transform_loc always applies the softmax
    removed_keywords={"R.image.affine_grid": ("align_corners",),
                      "R.vision.multibox_transform_loc": ("apply_softmax",)},
)

#: 0.27 writes what 0.25 writes, with the unified StructInfo/Type spellings on top
TVM027 = replace(
    TVM025,
    name="tvm-0.27",
    release=(0, 27),
    header_first=("# from typing import TypeVar",),
    typevar_symbols=True,
    out_sinfo_kw="out_ty",
    sinfo_args_kw="ty_args",
    emit_with_sinfo="R.emit_with_ty",
    object_sinfo="R.Any",
    prim_annotation="T",
    bare_prim_values=True,
    tir_vars=False,
    constant_key="ir.GenericConst",
    prim_value_float="float64",
    prim_bindings=True,
    void_dtype_none=True,
    removed_keywords={"R.layout_transform": ("axis_separators", "input_axis_separators")},
    declared_views=True,
)

#: every dialect by name, oldest first
DIALECTS: Dict[str, Dialect] = {d.name: d for d in (CLASSIC, TVM025, TVM027)}
#: the newest supported release: what ``dialect="tvm"`` means
NEWEST = TVM027
#: other names accepted for a dialect
ALIASES = {"tvm": NEWEST.name}

#: the spellings that only tvm-0.27 writes (the parser reads a text that uses one as tvm-0.27):
#: keywords, ``R.*``/``I.*``/``T.*`` names used as annotations, the module-level declaration call and
#: the metadata key
TVM027_MARKERS = {
    "keywords": frozenset({"out_ty", "ty_args"}),
    "names": frozenset({"R.Any", "R.PackedFunc", "I.StringType", "R.emit_with_ty", "R.emit_with_type"}),
    "calls": frozenset({"TypeVar"}),
    "metadata": frozenset({"ir.GenericConst"}),
}


#: keywords of Relax calls spelled differently by a release, and the name they mean (TEXT.DIALECT.3)
KEYWORD_ALIASES = {"out_ty": "out_sinfo", "ty_args": "sinfo_args"}

#: the scalar types a ``T.<name>`` annotation may name
SCALAR_TYPE_NAMES = frozenset({
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
    "float64", "bfloat16", "float8_e4m3fn", "float8_e5m2",
})


def dialect_names() -> Tuple[str, ...]:
    """The names ``mod.script(dialect=...)`` accepts: the table's, then the aliases."""
    return tuple(DIALECTS) + tuple(ALIASES)


def get_dialect(name: str) -> Dialect:
    """The dialect named ``name`` (a table name such as ``"tvm-0.25"``, or an alias: ``"tvm"`` is
    the newest release)."""
    key = ALIASES.get(name, name)
    try:
        return DIALECTS[key]
    except (KeyError, TypeError):
        raise UnsupportedError(f"unknown TVMScript dialect {name!r} (expected one of "
                               f"{', '.join(repr(n) for n in dialect_names())})") from None


def dialect_for_version(version: str) -> str:
    """The dialect a TVM release writes: the newest table entry whose release is not after
    ``version`` (``"0.25.0"`` -> ``"tvm-0.25"``, ``"0.27.0.post1"`` -> ``"tvm-0.27"``, a later
    release -> the newest known; before 0.25 -> ``"classic"``)."""
    parts = []
    for p in str(version).split(".")[:2]:
        digits = "".join(c for c in p if c.isdigit()) if p else ""
        if not digits:
            break
        parts.append(int(digits))
    if len(parts) < 2:
        raise UnsupportedError(f"cannot read a TVM version from {version!r}")
    ver = (parts[0], parts[1])
    best = CLASSIC
    for d in DIALECTS.values():
        if d.release is not None and d.release <= ver and (best.release is None or d.release > best.release):
            best = d
    return best.name


def installed_tvm_dialect() -> str:
    """The dialect of the installed TVM (``tvm.__version__``); UnsupportedError without TVM."""
    try:
        import tvm  # noqa: PLC0415 - optional dependency
    except ImportError:
        raise UnsupportedError("TVM is not installed") from None
    return dialect_for_version(tvm.__version__)


__all__ = ["Dialect", "CLASSIC", "TVM025", "TVM027", "DIALECTS", "NEWEST", "ALIASES", "TVM027_MARKERS", "SCALAR_TYPE_NAMES",
           "KEYWORD_ALIASES",
           "dialect_names", "get_dialect", "dialect_for_version", "installed_tvm_dialect"]
