from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32", ndim=1), c: R.Prim("bool"), d: R.Prim("bool")) -> R.Shape(ndim=1):
        n = T.int64()
        m = T.int64()
        if c:
            y = R.match_cast(x, R.Tensor((n,), "float32"))
            if d:
                z = R.concat((y, y, y), axis=0)
                w = R.match_cast(z, R.Tensor((m,), "float32"))
                s = R.shape([m + n])
            else:
                s = R.shape([n])
            t = s
        else:
            t = R.shape([0])
        return t
