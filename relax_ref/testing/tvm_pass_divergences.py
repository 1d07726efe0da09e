"""The recorded differences between relax-ref's passes and TVM's pass tests (PASS.FIDELITY.6).

Each :class:`Recorded` names a test of TVM's pass tests (its file and test function, never its
content) whose pairs relax-ref's pass does not reproduce, the spec rule that gives the reason, and the
reason in a line. :func:`relax_ref.testing.tvm_pass_pairs.apply_records` marks every readable pair that
is not equal with the record of its test, and ``tvm_pass_pairs --check`` fails when a pair is neither
equal nor recorded, so the list is checked by the measurement itself. ``tags`` says at which of TVM's
tags (``v0.25.0``, ``main``) the difference was measured.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple


@dataclass(frozen=True)
class Recorded:
    file: str
    test: str
    pass_name: str
    rule: str
    reason: str
    tags: Tuple[str, ...] = ("v0.25.0", "main")


EMPTY = ("a reduction over a possibly empty symbolic domain selects the reduction's identity; "
         "TVM's kernel leaves the output uninitialized")
NLL = ("predictions and weights are read under if_then_else on the ignored index (OP.NN.DIV.4); TVM's kernel reads "
       "them at the ignored index under an eager T.Select, out of bounds when that index is no class (-1 in these "
       "tests, or 1 of a symbolic class count that may be 1)")
NLL_BACK = ("the ignored index is honoured (OP.NN.DIV.4): weights are read under a select and the ignored "
            "targets get no gradient; TVM's kernel indexes the weights with the ignored target")
DSS = ("negative begin indices are canonicalized in the kernel (counted from the end, OP.dynamic_strided_slice); "
       "TVM's kernel reads at min(begin, dim - 1) + i * stride, a negative begin as given (out of bounds)")
RESHAPE = ("a shape that cannot be checked statically is asserted in the kernel (OP.reshape.C3): outside a dataflow "
           "block a pass keeps the call's run-time error (EVAL.OPT.1-2); TVM's kernel wraps the flat index modulo "
           "the input's extents and returns values where the element counts differ")
CANON_MATCH_CAST = ("TVM after 0.25: the match_casts that define symbolic variables used in prim-value "
                    "arguments are kept")
_MAIN = ("main",)
F3, F4, F5 = "PASS.FIDELITY.3", "PASS.FIDELITY.4", "PASS.FIDELITY.5"

RECORDED: Tuple[Recorded, ...] = (
    Recorded('test_transform_legalize_ops_search_statistical.py', 'test_sum_symbolic', 'LegalizeOps', F3,
             EMPTY),
    Recorded('test_transform_legalize_ops_search_statistical.py', 'test_prod_symbolic', 'LegalizeOps', F3,
             EMPTY),
    Recorded('test_transform_legalize_ops_search_statistical.py', 'test_max_symbolic', 'LegalizeOps', F3,
             EMPTY),
    Recorded('test_transform_legalize_ops_search_statistical.py', 'test_min_symbolic', 'LegalizeOps', F3,
             EMPTY),
    Recorded('test_transform_legalize_ops_search_statistical.py', 'test_mean_symbolic', 'LegalizeOps', F3,
             EMPTY),
    Recorded('test_transform_legalize_ops_search_statistical.py', 'test_std_symbolic', 'LegalizeOps', F3,
             EMPTY),
    Recorded('test_transform_legalize_ops_search_statistical.py', 'test_variance_symbolic', 'LegalizeOps', F3,
             EMPTY),
    Recorded('test_transform_legalize_ops_search_statistical.py', 'test_argmax_symbolic', 'LegalizeOps', F3,
             EMPTY),
    Recorded('test_transform_legalize_ops_search_statistical.py', 'test_argmin_symbolic', 'LegalizeOps', F3,
             EMPTY),
    Recorded('test_transform_legalize_ops_index_linear_algebra.py', 'test_matmul_4_5_symbolic', 'LegalizeOps', F3,
             EMPTY),
    Recorded('test_transform_legalize_ops_index_linear_algebra.py', 'test_einsum_symbolic', 'LegalizeOps', F3,
             EMPTY),
    Recorded('test_transform_legalize_ops_manipulate.py', 'test_reshape_symbolic', 'LegalizeOps', F3,
             RESHAPE),
    Recorded('test_transform_legalize_ops_manipulate.py', 'test_data_dependent_reshape', 'LegalizeOps', F3,
             RESHAPE),
    Recorded('test_transform_legalize_ops_nn.py', 'test_nll_loss', 'LegalizeOps', F3,
             NLL),
    Recorded('test_transform_legalize_ops_nn.py', 'test_nll_loss_symbolic', 'LegalizeOps', F3,
             NLL),
    Recorded('test_transform_legalize_ops_nn.py', 'test_nll_no_batch', 'LegalizeOps', F3,
             NLL),
    Recorded('test_transform_legalize_ops_nn.py', 'test_nll_no_weight', 'LegalizeOps', F3,
             NLL),
    Recorded('test_transform_legalize_ops_grad.py', 'test_max_pool2d_backward', 'LegalizeOps', F3,
             "TOPI's pool_grad does not bound the output positions it reads from above: for this test's shapes "
             "data column 9 reads argmax column 5 of 5 (out of bounds); its argmax reducer also gives no gradient "
             "to a window whose maximum is the dtype's lowest value and moves past a NaN, where the semantics "
             "(OP.grad.max_pool2d_backward.C4) give the first maximum and nothing"),
    Recorded('test_transform_legalize_ops_grad.py', 'test_nll_loss_backward', 'LegalizeOps', F3,
             NLL_BACK),
    Recorded('test_transform_legalize_ops_grad.py', 'test_nll_loss_backward_no_batch', 'LegalizeOps', F3,
             NLL_BACK),
    Recorded('test_transform_legalize_ops_grad.py', 'test_nll_loss_backward_no_weight', 'LegalizeOps', F3,
             NLL_BACK),
    Recorded('test_transform_legalize_ops_index_linear_algebra.py', 'test_dynamic_strided_slice', 'LegalizeOps', F3,
             DSS),
    Recorded('test_transform_legalize_ops_index_linear_algebra.py', 'test_dynamic_strided_slice_symbolic', 'LegalizeOps', F3,
             DSS),
    Recorded('test_transform_legalize_ops_nn.py', 'test_conv2d_transpose_symbolic', 'LegalizeOps', F3,
             "the data's channels c and the weight's input channels f are not provably equal, so the call is kept "
             "with its run-time check (OP.NN.CONV.SEM.3; outside a dataflow block a pass keeps run-time errors, "
             "EVAL.OPT.1-2); TVM's kernel reads the weight at the data's channels, out of bounds or a value where "
             "the spec raises"),
    Recorded('test_transform_legalize_ops_nn.py', 'test_conv2d_symbolic_group', 'LegalizeOps', F5,
             "TVM 0.27 legalizes a grouped convolution whose channel counts are symbolic and not provably related "
             "(c and c_div_8); its kernel drops the run-time check c == 8 * c_div_8 (OP.NN.CONV.SEM.3) and returns "
             "values where the spec requires an error (EVAL.OPT.1-2), so relax-ref keeps the call at every "
             "release (PASS.RELEASE.2)", _MAIN),
    Recorded('test_transform_legalize_ops_image.py', 'test_image_affine_grid', 'LegalizeOps', F5,
             "TVM 0.25's affine_grid kernel adds x, y and the translation in that order; relax-ref computes TVM "
             "0.27's order (translation first, then the axes from the slowest, as its 3-d grid needs), so values "
             "are bit-exact with 0.27", ("v0.25.0",)),
    Recorded('test_transform_convert_layout.py', 'test_conv2d_matchcast_bias_sub_indexed', 'ConvertLayout', F5,
             "TVM after 0.25: the packed extent of a symbolic channel count is written (c - c % -4) // 4; relax-ref "
             "keeps TVM 0.25's (c + 3) // 4 (the same value)", _MAIN),
    Recorded('test_transform_canonicalize_bindings.py', 'test_fold_variables_from_match_cast', 'CanonicalizeBindings', F5,
             CANON_MATCH_CAST, _MAIN),
    Recorded('test_transform_canonicalize_bindings.py', 'test_match_cast_may_have_distinct_values_in_branches', 'CanonicalizeBindings', F5,
             CANON_MATCH_CAST, _MAIN),
    Recorded('test_transform_rewrite_dataflow_reshape.py', 'test_rewrite_dynamic_reshape', 'RewriteDataflowReshape', F4,
             'a reshape kernel relax-ref does not recognize (PASS.RESHAPE.2)', _MAIN),
    Recorded('test_backend_transform_shape_lower.py', 'test_symbolic_compute', 'VMShapeLower', 'PASS.SHAPELOWER.6',
             "TVM after 0.25: an unknown dtype is passed to check_tensor_info as R.null_value() bound first, not R.dtype('')", _MAIN),
    Recorded('test_transform_static_plan_block_memory.py', 'test_add', 'StaticPlanBlockMemory', F4,
             'a dynamic output whose dimension has no constant bound is sized by the dimension itself; TVM uses its symbolic interval bound'),
)

_INDEX: Dict[Tuple[str, str, str], Recorded] = {}


def find(file: str, test: str, pass_name: str) -> Optional[Recorded]:
    """The record of a test's pairs of one pass (None: not recorded)."""
    if not _INDEX:
        _INDEX.update({(r.file, r.test, r.pass_name): r for r in RECORDED})
    return _INDEX.get((file, test, pass_name))


__all__ = ["Recorded", "RECORDED", "find"]
