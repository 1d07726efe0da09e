from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def sub(a: T.handle, b: T.handle, c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        C = T.match_buffer(c, (n,), "float32")
        for i in range(n):
            C[i] = A[i] - B[i]

    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        z = R.call_tir(cls.sub, (x, y), out_sinfo=R.Tensor((n,), "float32"))
        return z
