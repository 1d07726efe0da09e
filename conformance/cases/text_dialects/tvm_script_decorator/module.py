import tvm
from tvm.script import relax as R


@tvm.script.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.multiply(x, x)
        return y
