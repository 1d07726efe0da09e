from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(b: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
        c = R.astype(b, "float32")
        z = R.call_inplace_packed("conformance.add_inplace", c, b, inplace_indices=[0], sinfo_args=R.Tensor((4,), "float32"))
        return (z, b)
