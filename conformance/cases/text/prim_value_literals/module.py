from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        a = R.prim_value(5)
        b = R.prim_value(1.5)
        c = R.shape([2, 3])
        d = R.str("hello")
        return (a, b, c, d)
