from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3), "float32")) -> R.Tuple(R.Tensor(("n", 6), "float32"), R.Tensor(("n * 9",), "float32")):
        y = (R.repeat(x, 2, axis=-1), R.repeat(x, 3))
        return y
