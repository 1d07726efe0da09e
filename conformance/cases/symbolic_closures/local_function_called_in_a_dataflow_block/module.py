from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        @R.function
        def mix(a: R.Tensor(("k",), "float32"), b: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
            w = R.subtract(a, b)
            return w
        with R.dataflow():
            p = R.add(x, y)
            q = mix(p, y)
            r = mix(q, x)
            R.output(r)
        return r
