from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), i: R.Tensor((2,), "int64")) -> R.Tensor((2,), "float32"):
        y = R.gather_elements(x, i, axis=1)
        return y
