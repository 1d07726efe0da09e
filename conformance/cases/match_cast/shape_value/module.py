from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(ndim=2)) -> R.Prim("int64"):
        a = T.int64()
        b = T.int64()
        t = R.match_cast(s, R.Shape([a, b]))
        p = R.prim_value(a * b + 1)
        return p
