from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32")):
        c = R.const([1.0, 2.0, 3.0], "float32")
        y = R.call_packed("conformance.add_inplace", c, x, sinfo_args=R.Tensor((3,), "float32"))
        z = R.call_packed("conformance.add", y, R.const([0.0, 0.0, 0.0], "float32"), sinfo_args=R.Tensor((3,), "float32"))
        return z
