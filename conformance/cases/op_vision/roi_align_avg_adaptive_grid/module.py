from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2, 6, 7), "float32"), rois: R.Tensor(("r", 5), "float32")) -> R.Tensor(("r", 2, 2, 3), "float32"):
        y = R.vision.roi_align(x, rois, (2, 3), 1.0)
        return y
