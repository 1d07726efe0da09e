from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def rowsum(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64(2),), "float32")):
        for i, k in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]

    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        cls = Module
        y = R.call_tir(cls.rowsum, (x,), out_sinfo=R.Tensor((2,), "float32"))
        return y
