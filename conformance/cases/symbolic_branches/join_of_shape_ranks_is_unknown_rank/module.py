from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def want(s: R.Shape(ndim=1)) -> R.Shape(ndim=1):
        return s

    @R.function
    def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Shape(ndim=1):
        n = T.int64()
        cls = Module
        if c:
            s = R.shape([n])
        else:
            s = R.shape([n, 1])
        r = cls.want(s)
        return r
