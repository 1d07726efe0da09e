from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def want(t: R.Tuple(R.Tensor(("k",), "float32"), R.Tensor(("k",), "float32"))) -> R.Tensor(("k",), "float32"):
        a = t[0]
        return a

    @R.function
    def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
        cls = Module
        if c:
            t = (x, x)
        else:
            t = (x,)
        r = cls.want(t)
        return r
