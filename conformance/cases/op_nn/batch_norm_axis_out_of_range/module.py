from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4, 5), "float32"), g: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32"), m: R.Tensor((4,), "float32"), v: R.Tensor((4,), "float32")):
        y = R.nn.batch_norm(x, g, b, m, v, axis=3)
        return y
