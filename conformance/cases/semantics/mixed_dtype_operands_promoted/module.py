from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((T.int64(3),), "int32"), F: T.Buffer((T.int64(3),), "float32"),
          B: T.Buffer((T.int64(3),), "int64"), G: T.Buffer((T.int64(3),), "float32")):
        for i in range(T.int64(3)):
            B[i] = A[i] * T.int64(3000000000)
            G[i] = A[i] + F[i]

    @R.function
    def main(a: R.Tensor((3,), "int32"), f: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), "int64"), R.Tensor((3,), "float32")):
        cls = Module
        r = R.call_tir(cls.k, (a, f), out_sinfo=[R.Tensor((3,), "int64"), R.Tensor((3,), "float32")])
        return r
