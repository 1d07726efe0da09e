from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Tuple(R.Tensor("float32", ndim=1), R.Shape(ndim=1)):
        n = T.int64()
        k = T.int64()
        if c:
            y = R.match_cast(x, R.Tensor((n,), "float32"))
            z = R.add(y, y)
            t = (z, R.shape([n]))
        else:
            t = (x, R.shape([0]))
        a = t[0]
        b = t[1]
        u = R.match_cast(b, R.Shape([k]))
        r = (a, u)
        return r
