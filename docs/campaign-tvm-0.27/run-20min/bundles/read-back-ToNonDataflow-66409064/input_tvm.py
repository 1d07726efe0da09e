# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((5, 1, 1, 2), dtype="float32"), y: R.Tensor((5, 2, 4, n), dtype="float16"), z: R.Tensor((4,), dtype="bool")) -> R.Tensor((5, 2, 4, n), dtype="float16"):
        gv: R.Tensor((5, 2, 4, n), dtype="float16") = R.cos(y)
        if T.bool(False):
            cond_out: R.Tensor((5, 2, 4, n), dtype="float16") = gv
        else:
            cond_out: R.Tensor((5, 2, 4, n), dtype="float16") = gv
        gv1: R.Tensor((5, 2, 4, n), dtype="float16") = R.nn.relu(cond_out)
        return gv1