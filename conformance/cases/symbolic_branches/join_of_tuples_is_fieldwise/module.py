from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def want(t: R.Tuple(R.Tensor(("k",), "float32"), R.Shape(["k", "j"]))) -> R.Shape(["j", "k"]):
        k = T.int64()
        j = T.int64()
        r = R.shape([j, k])
        return r

    @R.function
    def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Shape(ndim=2):
        n = T.int64()
        cls = Module
        if c:
            t = (x, R.shape([n, 1]))
        else:
            t = (x, R.shape([n + 1, 2]))
        r = cls.want(t)
        return r
