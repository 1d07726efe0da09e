"""ConvertToDataflow: wrap runs of pure bindings into dataflow blocks (PASS.TODF.*).

Follows TVM 0.25 (``src/relax/transform/convert_dataflow.cc``). In every ``SeqExpr`` of every Relax
function (branches and nested functions included), the bindings of ordinary blocks are scanned in
order; a binding is *dataflow-compatible* unless its value is an ``If`` or an impure call
(PASS.TODF.1). A maximal run of compatible bindings becomes a ``DataflowBlock`` when it has at least
``min_size`` bindings (default 2) or extends an existing dataflow block (existing blocks are kept and
absorb the compatible bindings that follow them); shorter runs stay in ordinary blocks
(PASS.TODF.2). The pass is followed by :class:`CanonicalizeBindings`, which turns the variables only
used inside their new dataflow block into ``DataflowVar``s (PASS.TODF.3).
"""

from __future__ import annotations

from typing import List, Optional

from ..static.purity import is_impure_call
from ..errors import RelaxError
from ..ir import expr as rx
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from .canonicalize_bindings import CanonicalizeBindings
from .pass_infra import FunctionPass, Pass, Sequential


class _Extractor(ExprMutator):
    def __init__(self, min_size: int) -> None:
        super().__init__()
        self.min_size = min_size

    def visit_SeqExpr(self, seq: rx.SeqExpr) -> rx.Expr:
        new_blocks: List[rx.BindingBlock] = []
        new_body = self.visit_expr(seq.body)
        changed = new_body is not seq.body
        non_df: List[rx.Binding] = []
        df: List[rx.Binding] = []
        input_df: Optional[rx.DataflowBlock] = None

        def push() -> None:
            nonlocal non_df, df, input_df, changed
            if not df:
                return
            if len(df) < self.min_size and input_df is None:
                non_df.extend(df)
            else:
                new_blocks.append(rx.BindingBlock(tuple(non_df)))
                new_blocks.append(rx.DataflowBlock(tuple(df)))
                non_df = []
                changed = changed or input_df is None or len(input_df.bindings) != len(df)
            df = []
            input_df = None

        for block in seq.blocks:
            nb = self.visit_block(block)
            changed = changed or nb is not block
            if isinstance(nb, rx.DataflowBlock):
                df.extend(nb.bindings)
                input_df = nb
                continue
            for b in nb.bindings:
                v = b.value
                compatible = not isinstance(v, rx.If) and not (isinstance(v, rx.Call) and is_impure_call(v))
                if compatible:
                    df.append(b)
                else:
                    push()
                    non_df.append(b)
        push()
        new_blocks.append(rx.BindingBlock(tuple(non_df)))
        if not changed:
            return seq
        return rx.SeqExpr(tuple(b for b in new_blocks if b.bindings), new_body, span=seq.span)


def convert_to_dataflow(func: rx.Function, min_size: int = 2) -> rx.Function:
    """(PASS.TODF.1-2) (not re-normalized; variables are not yet turned into DataflowVars)"""
    return _Extractor(min_size).visit_expr(func)


class _ConvertInner(FunctionPass):
    name = "ConvertToDataflowInner"
    opt_level = 0

    def __init__(self, min_size: int) -> None:
        self.min_size = min_size

    def transform_function(self, func: rx.Function, mod: IRModule, name: str) -> rx.Function:
        return convert_to_dataflow(func, self.min_size)


class ConvertToDataflow(Pass):
    """``ConvertToDataflow(min_size=2)`` followed by CanonicalizeBindings (PASS.TODF.*)."""

    name = "ConvertToDataflow"
    opt_level = 0

    def __init__(self, min_size: int = 2) -> None:
        if not isinstance(min_size, int) or min_size < 1:
            raise RelaxError(f"ConvertToDataflow: min_size must be a positive int, got {min_size!r}")
        self.min_size = min_size

    def transform(self, mod: IRModule) -> IRModule:
        return Sequential([_ConvertInner(self.min_size), CanonicalizeBindings()], "ConvertToDataflow")(mod)


__all__ = ["ConvertToDataflow", "convert_to_dataflow"]
