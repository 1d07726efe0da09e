from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 2), "float32"), y: R.Tensor(("n", 2), "float32")) -> R.Tensor(("n", 2), "float32"):
        n = T.int64()
        with R.dataflow():
            s = R.call_pure_packed("conformance.add", x, y, sinfo_args=R.Tensor((n, 2), "float32"))
            R.output(s)
        return s
