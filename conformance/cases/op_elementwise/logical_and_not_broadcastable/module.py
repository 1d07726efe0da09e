from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), "bool"), b: R.Tensor((4,), "bool")) -> R.Tensor(ndim=2, dtype="bool"):
        y = R.logical_and(a, b)
        return y
