from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(F: T.Buffer((T.int64(3),), "float32"), G: T.Buffer((T.int64(3),), "float32")):
        for i in range(T.int64(3)):
            G[i] = F[i] + (T.float32(16777216) + T.float32(1))

    @R.function
    def main(f: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        r = R.call_tir(cls.k, (f,), out_sinfo=R.Tensor((3,), "float32"))
        return r
