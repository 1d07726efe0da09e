from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((3, 8, 6), "float32"), vc: R.Tensor((3,), "int32"), ind: R.Tensor((3, 8), "int32")) -> R.Tuple(R.Tensor((3, 8, 6), "float32"), R.Tensor((3, 8), "int32"), R.Tensor((3, 1), "int32")):
        y = R.vision.non_max_suppression(d, vc, ind, iou_threshold=0.6, soft_nms_sigma=0.5, score_threshold=0.3)
        return y
