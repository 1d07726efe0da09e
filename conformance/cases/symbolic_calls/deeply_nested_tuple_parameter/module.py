from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tuple(R.Tuple(R.Tensor(("n",), "float32"))), R.Shape(["n", "m"]), R.Prim(value="m * n"))) -> R.Tensor(("n",), "float32"):
        a = t[0]
        b = a[0]
        c = b[0]
        d = R.negative(c)
        return d
