from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        T.assume(n >= T.int64(0))
        for i in range(n):
            B[i] = A[i] * T.FloatImm("float32", 0.5) + T.Cast("float32", T.IntImm("int32", 3))

    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor("float32", ndim=1)) -> R.Tuple(R.Tensor(("n",), "float16"), R.Shape(["n", 2]), R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = Module
        z = R.match_cast(y, x.struct_info)
        h = x.astype("float16")
        s = R.ShapeExpr([n, 2])
        t = (z, x)
        u = R.TupleGetItem(t, 0)
        w = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((n,), "float32"))
        r = (h, s, u, w)
        return r
