from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def scale(p: R.Prim(value="m"), v: R.Tensor(("m",), "int32")) -> R.Tensor(("m",), "int32"):
        m = T.int64()
        c = R.full(R.shape([m]), R.const(3, "int32"), "int32")
        w = R.multiply(v, c)
        return w

    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=1, dtype="int32"):
        k = T.int64()
        cls = Module
        u = R.unique(x)
        v = R.match_cast(u, R.Tensor((k,), "int32"))
        r = cls.scale(R.prim_value(k), v)
        return r
