from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 1), "float32")) -> R.Tuple(R.Tensor((3,), "float32"), R.Tensor((1, 3), "float32"), R.Tensor((3, 1), "float32")):
        y = (R.squeeze(x), R.squeeze(x, axis=[-1]), R.squeeze(x, axis=[0, 1]))
        return y
