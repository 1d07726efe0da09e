from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def dbl(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            with T.sblock("dbl"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[vi] * T.float32(2)

    @T.prim_func(s_tir=True)
    def inc(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            with T.sblock("inc"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        R.func_attr({"tir_var_upper_bound": {"n": 9223372036854775808}})
        n = T.int64()
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.dbl, (x,), out_sinfo=R.Tensor((n,), "float32"))
            b = R.call_tir(cls.inc, (a,), out_sinfo=R.Tensor((n,), "float32"))
            c = R.call_tir(cls.dbl, (b,), out_sinfo=R.Tensor((n,), "float32"))
            R.output(c)
        return c
