from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def divmod_all(a: T.handle, b: T.handle, o: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "int32")
        B = T.match_buffer(b, (n,), "int32")
        O = T.match_buffer(o, (T.int64(4), n), "int32")
        for i in range(n):
            O[0, i] = A[i] // B[i]
            O[1, i] = A[i] % B[i]
            O[2, i] = T.truncdiv(A[i], B[i])
            O[3, i] = T.truncmod(A[i], B[i])

    @R.function
    def main(x: R.Tensor(("n",), "int32"), y: R.Tensor(("n",), "int32")) -> R.Tensor((4, "n"), "int32"):
        n = T.int64()
        cls = Module
        z = R.call_tir(cls.divmod_all, (x, y), out_sinfo=R.Tensor((4, n), "int32"))
        return z
