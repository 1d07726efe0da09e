from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(t: R.Tensor((1, 2, 3), "float32")) -> R.Tensor((1, 2, 2, 3), "float32"):
        y = R.image.affine_grid(t, (2, 3), align_corners=False)
        return y
