from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((1, 2, 6), "float32"), vc: R.Tensor((1,), "int32"), ind: R.Tensor((1, 2))):
        y = R.vision.non_max_suppression(d, vc, ind, iou_threshold=0.3)
        return y
