from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
        R.match_cast(x, R.Tensor((3,), "float32"))
        return x
