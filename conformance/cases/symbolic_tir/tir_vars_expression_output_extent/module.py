from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def ramp(a: T.handle, b: T.handle, m: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (m,), "float32")
        for i in range(m):
            B[i] = T.Cast("float32", i) * T.float32(0.5)

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 2 + 1",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.ramp, (x,), out_sinfo=R.Tensor((n * 2 + 1,), "float32"), tir_vars=R.shape([n * 2 + 1]))
        return y
