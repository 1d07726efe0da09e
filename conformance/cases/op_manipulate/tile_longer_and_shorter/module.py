from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3), "float32")) -> R.Tuple(R.Tensor((2, "n", 6), "float32"), R.Tensor(("n", 6), "float32")):
        y = (R.tile(x, [2, 1, 2]), R.tile(x, 2))
        return y
