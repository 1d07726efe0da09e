from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def add_row(A: T.Buffer((T.int64(6), T.int64(4)), "float32"), V: T.Buffer((T.int64(4),), "float32")):
        for j in range(T.int64(4)):
            A[T.int64(2), j] = A[T.int64(2), j] + V[j]

    @R.function
    def main(x: R.Tensor((6, 4), "float32"), v: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((6, 4), "float32"), R.Tensor((6, 4), "float32")):
        cls = Module
        s = R.multiply(x, x)
        y = R.call_tir_inplace(cls.add_row, (x, v), inplace_indices=[0], out_sinfo=R.Tensor((6, 4), "float32"))
        t = R.subtract(x, s)
        return (y, t)
