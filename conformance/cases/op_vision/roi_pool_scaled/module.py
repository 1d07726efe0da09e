from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2, 7, 7), "float32"), rois: R.Tensor((3, 5), "float32")) -> R.Tensor((3, 2, 3, 2), "float32"):
        y = R.vision.roi_pool(x, rois, (3, 2), 0.5)
        return y
