from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32"), y: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n", "m"), "float32"):
        n = T.int64()
        m = T.int64()
        z = R.call_dps_packed("conformance.add_dps", (x, y), out_sinfo=R.Tensor((n, m), "float32"))
        w = R.multiply(z, x)
        return w
