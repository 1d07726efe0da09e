from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((32,), "bfloat16"), b: R.Tensor((32,), "bfloat16")) -> R.Tensor((32,), "bfloat16"):
        y = R.floor_mod(a, b)
        return y
