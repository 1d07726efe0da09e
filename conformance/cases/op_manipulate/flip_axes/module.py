from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3), "float32")) -> R.Tuple(R.Tensor(("n", 3), "float32"), R.Tensor(("n", 3), "float32")):
        y = (R.flip(x, axis=0), R.flip(x, axis=-1))
        return y
