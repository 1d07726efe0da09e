from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n",), "float32"), b: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor((2, "n"), "float32"), R.Tensor(("n", 3), "float32")):
        y = (R.stack((a, b)), R.stack((a, b, a), axis=-1))
        return y
