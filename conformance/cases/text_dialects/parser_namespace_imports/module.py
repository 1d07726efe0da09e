from tvm.script.parser import ir as I
from tvm.script.parser import relax as R


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.subtract(x, x)
        return y
