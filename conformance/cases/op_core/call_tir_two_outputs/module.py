from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def split_sign(A: T.Buffer((T.int64(3),), "float32"), P: T.Buffer((T.int64(3),), "float32"), N: T.Buffer((T.int64(3),), "float32")):
        for i in range(T.int64(3)):
            P[i] = T.max(A[i], T.float32(0))
            N[i] = T.min(A[i], T.float32(0))

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), "float32"), R.Tensor((3,), "float32")):
        cls = Module
        y = R.call_tir(cls.split_sign, (x,), out_sinfo=[R.Tensor((3,), "float32"), R.Tensor((3,), "float32")])
        return y
