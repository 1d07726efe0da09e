from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def squares(b: T.handle, n: T.int64):
        B = T.match_buffer(b, (n,), "int64")
        for i in range(n):
            B[i] = i * i

    @R.function
    def main(s: R.Shape(["n"])) -> R.Tensor(("n",), "int64"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.squares, (), out_sinfo=R.Tensor((n,), "int64"), tir_vars=R.shape([n]))
        return y
