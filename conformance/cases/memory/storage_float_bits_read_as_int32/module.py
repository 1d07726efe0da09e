from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "int32"):
        n = T.int64()
        s = R.memory.alloc_storage(R.shape([n * 4]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        f = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
        u = R.call_packed("conformance.add_dps", x, x, f, sinfo_args=R.Object)
        i = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("int32"))
        return i
