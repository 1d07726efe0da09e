from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func(private=True)
    def double(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i in range(T.int64(3)):
            B[i] = A[i] * T.float32(2)

    @R.function(private=True, pure=True)
    def helper(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        y = R.call_tir(cls.double, x, out_sinfo=[R.Tensor((3,), "float32")])
        return y

    @R.function(pure=True, private=False)
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = Module.helper(x)
        return y
