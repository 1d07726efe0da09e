from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((1, 2, "n"), "float32"), l: R.Tensor((1, "m"), "float32"), a: R.Tensor((1, "k", 4), "float32")) -> R.Tuple(R.Tensor((1, "n", 4), "float32"), R.Tensor((1, 2, "n"), "float32")):
        y = R.vision.multibox_transform_loc(c, l, a)
        return y
