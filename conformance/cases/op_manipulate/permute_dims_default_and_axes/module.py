from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")) -> R.Tuple(R.Tensor((4, 3, 2), "float32"), R.Tensor((3, 4, 2), "float32")):
        y = (R.permute_dims(x), R.permute_dims(x, axes=[1, -1, 0]))
        return y
