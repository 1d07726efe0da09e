from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
        y = R.strided_slice(x, [1], R.str("a"), [2])
        return y
