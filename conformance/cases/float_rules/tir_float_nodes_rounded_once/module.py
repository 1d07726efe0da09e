from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def quantize(A: T.Buffer((T.int64(8),), "float32"), Q: T.Buffer((T.int64(8),), "float32")):
        for i in range(T.int64(8)):
            with T.sblock("q"):
                v = T.axis.spatial(T.int64(8), i)
                Q[v] = T.round(A[v] / T.float32(0.3))

    @T.prim_func
    def resize_index(A: T.Buffer((T.int64(8),), "float32"), B: T.Buffer((T.int64(8),), "float32")):
        for i in range(T.int64(8)):
            with T.sblock("b"):
                v = T.axis.spatial(T.int64(8), i)
                B[v] = T.ceil((A[v] + T.float32(0.5)) * T.float32(0.6666667) - T.float32(0.5) - T.float32(0.5))

    @T.prim_func
    def residual(X: T.Buffer((T.int64(16),), "float32"), Y: T.Buffer((T.int64(16),), "float32"),
                 Z: T.Buffer((T.int64(16),), "float32"), D: T.Buffer((T.int64(16),), "float32")):
        for i in range(T.int64(16)):
            with T.sblock("d"):
                v = T.axis.spatial(T.int64(16), i)
                D[v] = T.floor(X[v] * Y[v] - Z[v])

    @R.function
    def main(a: R.Tensor((8,), "float32"), r: R.Tensor((8,), "float32"), x: R.Tensor((16,), "float32"), y: R.Tensor((16,), "float32"), z: R.Tensor((16,), "float32")) -> R.Tuple(R.Tensor((8,), "float32"), R.Tensor((8,), "float32"), R.Tensor((16,), "float32")):
        cls = Module
        q = R.call_tir(cls.quantize, (a,), out_sinfo=R.Tensor((8,), "float32"))
        b = R.call_tir(cls.resize_index, (r,), out_sinfo=R.Tensor((8,), "float32"))
        d = R.call_tir(cls.residual, (x, y, z), out_sinfo=R.Tensor((16,), "float32"))
        return (q, b, d)
