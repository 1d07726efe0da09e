from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def four(B: T.Buffer((T.int64(2), T.int64(2)), "float32")):
        for i, j in T.grid(T.int64(2), T.int64(2)):
            B[i, j] = T.Cast("float32", i) - T.Cast("float32", j) * T.float32(0.25)

    @R.function
    def main() -> R.Tensor((2, 2), "float32"):
        cls = Module
        y = R.call_tir(cls.four, (), out_sinfo=R.Tensor((2, 2), "float32"))
        z = R.add(y, y)
        return z
