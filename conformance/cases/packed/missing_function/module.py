from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.call_packed("conformance.not_registered", x, sinfo_args=R.Tensor((3,), "float32"))
        return y
