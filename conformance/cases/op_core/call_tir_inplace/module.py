from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def add_into(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32"), C: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            A[i] = A[i] + B[i]
            C[i] = A[i] * B[i]

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tuple(R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")), R.Tensor((4,), "float32")):
        cls = Module
        r = R.call_tir_inplace(cls.add_into, (x, y), inplace_indices=[0, -1], out_sinfo=[R.Tensor((4,), "float32"), R.Tensor((4,), "float32")])
        return (r, x)
