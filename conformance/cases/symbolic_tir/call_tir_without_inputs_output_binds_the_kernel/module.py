from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def fill(b: T.handle):
        n = T.int64()
        m = T.int64()
        B = T.match_buffer(b, (n, m), "int32")
        for i, j in T.grid(n, m):
            B[i, j] = T.Cast("int32", i * m + j) - T.int32(3)

    @R.function
    def main(s: R.Shape(["n", "m"])) -> R.Tensor(("n", "m"), "int32"):
        n = T.int64()
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.fill, (), out_sinfo=R.Tensor((n, m), "int32"))
        return y
