from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16, 4), "bfloat16"), g: R.Tensor((4,), "bfloat16"), b: R.Tensor((4,), "bfloat16"), m: R.Tensor((4,), "bfloat16"), v: R.Tensor((4,), "bfloat16")) -> R.Tuple(R.Tensor((16, 4), "bfloat16"), R.Tensor((4,), "bfloat16"), R.Tensor((4,), "bfloat16")):
        y = R.nn.batch_norm(x, g, b, m, v, axis=1, epsilon=1e-05, momentum=0.1, training=True)
        return y
