from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        z = R.call_packed("conformance.add", x, y, sinfo_args=R.Tensor(ndim=1, dtype="float32"))
        return z
