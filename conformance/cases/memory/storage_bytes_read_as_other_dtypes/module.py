from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def put(A: T.Buffer((T.int64(2),), "int32"), B: T.Buffer((T.int64(2),), "int32")):
        for i in range(T.int64(2)):
            B[i] = A[i]

    @R.function(pure=False)
    def main(x: R.Tensor((2,), "int32")) -> R.Tuple(R.Tensor((8,), "uint8"), R.Tensor((2,), "int16"), R.Tensor((1,), "int64")):
        cls = Module
        s = R.memory.alloc_storage(R.shape([8]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        t = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([2]), R.dtype("int32"))
        cls.put(x, t)
        u8 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([8]), R.dtype("uint8"))
        i16 = R.memory.alloc_tensor(s, R.prim_value(2), R.shape([2]), R.dtype("int16"))
        i64 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([1]), R.dtype("int64"))
        r = (u8, i16, i64)
        return r
