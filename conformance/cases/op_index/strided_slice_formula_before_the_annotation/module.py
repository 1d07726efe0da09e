from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        y: R.Tensor((0,), "float32") = R.strided_slice(x, [0], [1], [-1])
        return y
