from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(v: R.Tensor((), "float32")) -> R.Tensor((2, 3), "float32"):
        y = R.full((2, 3), v)
        return y
