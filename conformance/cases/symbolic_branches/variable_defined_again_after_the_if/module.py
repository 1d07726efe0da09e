from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Tuple(R.Tensor("float32", ndim=1), R.Shape(ndim=1)):
        n = T.int64()
        if c:
            y = R.match_cast(x, R.Tensor((n,), "float32"))
            r = R.concat((y, y), axis=0)
        else:
            r = x
        w = R.match_cast(r, R.Tensor((n,), "float32"))
        v = R.multiply(w, w)
        s = R.shape([n * 3])
        t = (v, s)
        return t
