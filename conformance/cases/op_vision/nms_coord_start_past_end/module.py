from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((2, 4, 6), "float32"), vc: R.Tensor((2,), "int32"), ind: R.Tensor((2, 4), "int32")):
        y = R.vision.non_max_suppression(d, vc, ind, coord_start=3)
        return y
