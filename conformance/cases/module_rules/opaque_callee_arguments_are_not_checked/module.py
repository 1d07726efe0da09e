from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def call_it(f: R.Callable(ret=R.Tensor("float32", ndim=1)), x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor("float32", ndim=1):
        r = f(x, y)
        return r

    @R.function
    def add2(a: R.Tensor("float32", ndim=1), b: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
        k = T.int64()
        u = R.match_cast(a, R.Tensor((k,), "float32"))
        v = R.match_cast(b, R.Tensor((k,), "float32"))
        c = R.add(u, v)
        return c

    @R.function
    def one(a: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
        return a

    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor("float32", ndim=1):
        cls = Module
        if c:
            r = cls.call_it(cls.add2, x, y)
        else:
            r = cls.call_it(cls.one, x, y)
        return r
