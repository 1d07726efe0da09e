from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3,), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        y = R.einsum((a,), "1i->i")
        return y
