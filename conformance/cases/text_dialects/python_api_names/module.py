from tvm import relax
from tvm.script import ir as I, relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = relax.op.add(x, relax.const(1.0, "float32"))
        return y
