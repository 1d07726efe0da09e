from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def div(a: T.handle, b: T.handle, o: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "int32")
        B = T.match_buffer(b, (n,), "int32")
        O = T.match_buffer(o, (n,), "int32")
        for i in range(n):
            O[i] = A[i] // B[i]

    @R.function
    def main(x: R.Tensor(("n",), "int32"), y: R.Tensor(("n",), "int32")) -> R.Tensor(("n",), "int32"):
        n = T.int64()
        cls = Module
        z = R.call_tir(cls.div, (x, y), out_sinfo=R.Tensor((n,), "int32"))
        return z
