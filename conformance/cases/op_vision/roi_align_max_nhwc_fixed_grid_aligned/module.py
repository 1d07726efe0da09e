from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 6, 7, 2), "float32"), rois: R.Tensor((3, 5), "float32")) -> R.Tensor((3, 2, 2, 2), "float32"):
        y = R.vision.roi_align(x, rois, 2, 0.5, sample_ratio=2, aligned=True, layout="NHWC", mode="max")
        return y
