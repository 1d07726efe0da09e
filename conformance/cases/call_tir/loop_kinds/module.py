from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def kinds(A: T.Buffer((T.int64(8),), "float32"), B: T.Buffer((T.int64(8),), "float32")):
        for i in T.parallel(T.int64(2)):
            for j in T.unroll(T.int64(2)):
                for k in T.vectorized(T.int64(2)):
                    B[i * T.int64(4) + j * T.int64(2) + k] = A[T.int64(7) - (i * T.int64(4) + j * T.int64(2) + k)]

    @R.function
    def main(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        cls = Module
        y = R.call_tir(cls.kinds, (x,), out_sinfo=R.Tensor((8,), "float32"))
        return y
