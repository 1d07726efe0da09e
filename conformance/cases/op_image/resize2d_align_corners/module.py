from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 5, 6), "float32")) -> R.Tensor((2, 3, 9, 11), "float32"):
        y = R.image.resize2d(x, (9, 11), coordinate_transformation_mode="align_corners")
        return y
