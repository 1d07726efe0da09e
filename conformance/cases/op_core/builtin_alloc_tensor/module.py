from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def plus_one(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
        for i in range(T.int64(3)):
            B[i] = A[i] + T.float32(1)

    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        y = R.builtin.alloc_tensor(R.shape([3]), "float32", 0)
        u = cls.plus_one(x, y)
        return y
