from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 2), "int32"), v: R.Tensor((), "float32")) -> R.Tensor(("n", 2), "int32"):
        y = R.full_like(x, v)
        return y
