from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def want(s: R.Shape(["a", 2])) -> R.Shape(["a", 2]):
        return s

    @R.function
    def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Shape(ndim=2):
        n = T.int64()
        cls = Module
        if c:
            s = R.shape([n, 2])
        else:
            s = R.shape([n, 3])
        r = cls.want(s)
        return r
