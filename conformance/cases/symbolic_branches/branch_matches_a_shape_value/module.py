from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(ndim=2), c: R.Prim("bool")) -> R.Shape(ndim=2):
        a = T.int64()
        b = T.int64()
        if c:
            u = R.match_cast(s, R.Shape([a, b]))
            r = R.shape([b, a])
        else:
            r = s
        return r
