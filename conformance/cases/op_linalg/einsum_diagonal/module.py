from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n", "n"), "float32")) -> R.Tensor(("n",), "float32"):
        y = R.einsum((a,), "ii->i")
        return y
