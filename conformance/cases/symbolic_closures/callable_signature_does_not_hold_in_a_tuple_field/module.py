from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def first(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32"))), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        t = f(x)
        a = t[0]
        b = t[1]
        c = R.add(a, b)
        return c

    @R.function
    def split(v: R.Tensor("float32", ndim=1)) -> R.Tuple(R.Tensor("float32", ndim=1), R.Tensor("float32", ndim=1)):
        k = T.int64()
        u = R.match_cast(v, R.Tensor((k,), "float32"))
        w = R.concat((u, u), axis=0)
        t = (u, w)
        return t

    @R.function
    def same(v: R.Tensor("float32", ndim=1)) -> R.Tuple(R.Tensor("float32", ndim=1), R.Tensor("float32", ndim=1)):
        k = T.int64()
        u = R.match_cast(v, R.Tensor((k,), "float32"))
        w = R.negative(u)
        t = (u, w)
        return t

    @R.function
    def main(x: R.Tensor(("m",), "float32"), c: R.Prim("bool")) -> R.Tensor(("m",), "float32"):
        cls = Module
        if c:
            r = cls.first(cls.same, x)
        else:
            r = cls.first(cls.split, x)
        return r
