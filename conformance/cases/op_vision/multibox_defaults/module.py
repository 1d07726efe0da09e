from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((2, 3, 4), "float32"), l: R.Tensor((2, 16), "float32"), a: R.Tensor((1, 4, 4), "float32")) -> R.Tuple(R.Tensor((2, 4, 4), "float32"), R.Tensor((2, 3, 4), "float32")):
        y = R.vision.multibox_transform_loc(c, l, a)
        return y
