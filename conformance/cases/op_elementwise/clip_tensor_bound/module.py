from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), lo: R.Tensor((), "float32")) -> R.Tensor((3,), "float32"):
        y = R.clip(x, lo, R.prim_value(T.float32(1.0)))
        return y
