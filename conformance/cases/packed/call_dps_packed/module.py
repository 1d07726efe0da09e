from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor(("n",), "float32"), b: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        y = R.call_dps_packed("conformance.add_dps", (a, b), out_sinfo=R.Tensor((n,), "float32"))
        return y
