"""Block normalization (NORM.BLOCK.1-2): SeqExpr-valued bindings flattened into the enclosing block
sequence, empty blocks dropped, adjacent blocks of the same kind merged.
"""

from __future__ import annotations

from typing import List, Sequence

from ..analysis.free_vars import free_vars
from ..errors import WellFormedError
from ..ir import expr as rx


def normalize_blocks(blocks: Sequence[rx.BindingBlock]) -> List[rx.BindingBlock]:
    """Flatten SeqExpr-valued bindings, drop empty blocks and merge adjacent blocks of the same kind
    (NORM.BLOCK.1-2)."""
    flat: List[rx.BindingBlock] = []
    for block in blocks:
        is_df = isinstance(block, rx.DataflowBlock)
        current: List[rx.Binding] = []
        for b in block.bindings:
            if isinstance(b.value, rx.SeqExpr):
                seq = b.value
                flat.append(type(block)(tuple(current), span=block.span))
                current = []
                for inner in seq.blocks:
                    if is_df and not isinstance(inner, rx.DataflowBlock):
                        used = [v for v in free_vars(rx.SeqExpr((inner,), rx.Tuple(())))
                                if isinstance(v, rx.DataflowVar)]
                        if used:
                            raise WellFormedError(
                                "A DataflowVar may only be used within a DataflowBlock. The variable "
                                f"{b.var.name_hint} is defined within a DataflowBlock, but is bound to a "
                                f"SeqExpr whose non-dataflow blocks use the DataflowVars "
                                f"{', '.join(v.name_hint for v in used)}", b.span, binding=b.var.name_hint)
                    flat.append(inner)
                if isinstance(b, rx.MatchCast):
                    current.append(rx.MatchCast(b.var, seq.body, b.struct_info, span=b.span))
                else:
                    current.append(rx.VarBinding(b.var, seq.body, span=b.span))
            else:
                current.append(b)
        flat.append(type(block)(tuple(current), span=block.span))
    out: List[rx.BindingBlock] = []
    for block in flat:
        if not block.bindings:
            continue
        if out and type(out[-1]) is type(block):
            prev = out.pop()
            out.append(type(prev)(prev.bindings + block.bindings, span=prev.span))
        else:
            out.append(block)
    return out
