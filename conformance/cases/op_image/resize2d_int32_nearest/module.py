from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 4), "int32")) -> R.Tensor((1, 2, 6, 8), "int32"):
        y = R.image.resize2d(x, (6, 8), method="nearest_neighbor", coordinate_transformation_mode="asymmetric")
        return y
