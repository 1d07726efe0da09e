from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
        s = R.memory.alloc_storage(R.shape([4611686018427387904]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        t1 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        t2 = R.memory.alloc_tensor(s, R.prim_value(16), R.shape([4]), R.dtype("float32"))
        u = R.call_packed("conformance.add_dps", x, x, t1, sinfo_args=R.Object)
        v = R.call_packed("conformance.add_dps", y, y, t2, sinfo_args=R.Object)
        r = (t1, t2)
        return r
