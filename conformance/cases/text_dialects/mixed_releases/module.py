from typing import TypeVar
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def double(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
        for i in range(T.int64(3)):
            with T.sblock("d"):
                vi = T.axis.spatial(T.int64(3), i)
                B[vi] = A[vi] * T.float32(2)

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        y = R.call_tir(cls.double, (x,), out_sinfo=R.Tensor((3,), "float32"))
        z = R.call_tir(cls.double, (y,), out_ty=R.Tensor((3,), "float32"))
        return z
