from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(p: R.Prim(value="k")) -> R.Tensor((0,), "float32"):
        k = T.int64()
        s = R.memory.alloc_storage(R.shape([8]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        t = R.memory.alloc_tensor(s, R.prim_value(k), R.shape([0]), R.dtype("float32"))
        return t
