from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 5), "float32"), w: R.Tensor((4,), "float32")):
        y = R.nn.rms_norm(x, w)
        return y
