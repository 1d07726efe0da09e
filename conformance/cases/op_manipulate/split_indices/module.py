from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 5), "float32")) -> R.Tuple(R.Tensor((4, 1), "float32"), R.Tensor((4, 2), "float32"), R.Tensor((4, 2), "float32")):
        y = R.split(x, [1, 3], axis=-1)
        return y
