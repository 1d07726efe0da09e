from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, 4, 4), "float32"), rois: R.Tensor((1, 5), "float32")) -> R.Tensor((1, 1, 2, 2), "float32"):
        y = R.vision.roi_pool(x, rois, 2, 1.0)
        return y
