from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(c: R.Prim("bool"), x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        u = R.assert_op(c, format="the condition must hold")
        return x
