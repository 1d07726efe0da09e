from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        c = R.prim_value(n % 2 == 0)
        if c:
            r = R.add(x, x)
        else:
            r = R.negative(x)
        return r
