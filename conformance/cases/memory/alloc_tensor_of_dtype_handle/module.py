from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((12,), "uint8"):
        s = R.memory.alloc_storage(R.shape([13]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        b = R.memory.alloc_tensor(s, R.prim_value(1), R.shape([12]), R.dtype("handle"))
        return b
