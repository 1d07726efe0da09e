from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, 4, 4), "float32"), r: R.Tensor((1, 5), "float32")):
        y = R.vision.roi_align(x, r, pooled_size=(2, 2), spatial_scale=1.0, sample_ratio=-1, layout="NCHW")
        return y
