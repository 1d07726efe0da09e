from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def halvings(A: T.Buffer((T.int64(3),), "int32"), B: T.Buffer((T.int64(3),), "int32")):
        for i in range(T.int64(3)):
            v = T.alloc_buffer((T.int64(1),), "int32")
            c = T.alloc_buffer((T.int64(1),), "int32")
            v[0] = A[i]
            c[0] = 0
            while v[0] > 1:
                v[0] = v[0] // 2
                c[0] = c[0] + 1
            B[i] = c[0]

    @R.function
    def main(x: R.Tensor((3,), "int32")) -> R.Tensor((3,), "int32"):
        cls = Module
        y = R.call_tir(cls.halvings, (x,), out_sinfo=R.Tensor((3,), "int32"))
        return y
