"""The two TVMScript spellings the printer emits (spec rule TEXT.DIALECT.1).

``classic`` is the spelling of TVM releases before 0.25 (``tir as T``, ``T.block``,
``T.alloc_buffer`` inside blocks, ``T.block_attr``, ``"tir.noalias"``, ``T.truncdiv``).
``tvm`` is exactly what TVM 0.25 prints and accepts (``tirx as T``, ``T.sblock``,
``T.sblock_alloc_buffer``, ``T.sblock_attr``, ``"tirx.noalias"``, ``T.Div``,
``@T.prim_func(s_tir=True)`` for block-based functions).

Only the spelling differs; the IR printed is the same. PrimFunc attribute keys are spelled in the
dialect's namespace (``tir.noalias`` / ``tirx.noalias``), which is what each TVM version expects;
structural equality does not distinguish the two prefixes (EXPR.EQ.2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

from ...errors import UnsupportedError


@dataclass(frozen=True)
class Dialect:
    name: str
    tir_module: str             # the module imported as T in the header comment
    block: str                  # T.block / T.sblock
    block_alloc: str            # T.alloc_buffer / T.sblock_alloc_buffer (block-scoped allocation)
    block_attr: str             # T.block_attr / T.sblock_attr
    truncdiv: str               # integer Div node
    root_comment: str           # the implicit root block comment
    mark_s_tir: bool            # @T.prim_func(s_tir=True) for block-based functions
    header_extra: Tuple[str, ...] = ()  # extra header comment lines after the T import

    def translate_attr_key(self, key: str) -> str:
        """Spell a TensorIR function attribute key in this dialect (``tir.x`` <-> ``tirx.x``)."""
        if self.name == "tvm" and key.startswith("tir."):
            return "tirx." + key[4:]
        if self.name == "classic" and key.startswith("tirx."):
            return "tir." + key[5:]
        return key


CLASSIC = Dialect(
    name="classic",
    tir_module="tir",
    block="block",
    block_alloc="alloc_buffer",
    block_attr="block_attr",
    truncdiv="truncdiv",
    root_comment='# with T.block("root"):',
    mark_s_tir=False,
)

TVM = Dialect(
    name="tvm",
    tir_module="tirx",
    block="sblock",
    block_alloc="sblock_alloc_buffer",
    block_attr="sblock_attr",
    truncdiv="Div",
    root_comment='# with T.sblock("root"):',
    mark_s_tir=True,
    header_extra=("# from tvm.tirx.layout import Axis",),
)

DIALECTS = {"classic": CLASSIC, "tvm": TVM}


def get_dialect(name: str) -> Dialect:
    """The dialect named ``name`` (``"classic"`` or ``"tvm"``)."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise UnsupportedError(f"unknown TVMScript dialect '{name}' (expected 'classic' or 'tvm')") from None


__all__ = ["Dialect", "CLASSIC", "TVM", "DIALECTS", "get_dialect"]
