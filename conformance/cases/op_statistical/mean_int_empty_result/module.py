from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "int32")) -> R.Tensor(("m",), "int32"):
        y = R.mean(x, axis=[0])
        return y
