from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n * m",), "float32"):
        y = R.reshape(x, (-1,))
        return y
