from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32", ndim=1), y: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Tuple(R.Tensor("float32", ndim=1), R.Tensor("float32", ndim=1)):
        n = T.int64()
        if c:
            a = R.match_cast(x, R.Tensor((n,), "float32"))
            p = R.add(a, a)
        else:
            p = x
        if c:
            b = R.match_cast(y, R.Tensor((n,), "float32"))
            q = R.multiply(b, b)
        else:
            q = y
        t = (p, q)
        return t
