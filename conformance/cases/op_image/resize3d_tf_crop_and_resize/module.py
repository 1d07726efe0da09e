from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 3, 4, 5), "float32")) -> R.Tensor((2, 3, 3, 4, 3), "float32"):
        y = R.image.resize3d(x, (3, 4, 3), coordinate_transformation_mode="tf_crop_and_resize", roi=[0.0, 0.1, 0.2, 1.5, 0.8, 1.2], extrapolation_value=-7.0)
        return y
