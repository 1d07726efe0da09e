from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "int64")):
        y = R.median(x, axis=[1])
        return y
