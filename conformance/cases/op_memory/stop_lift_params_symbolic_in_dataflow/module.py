from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32")):
        with R.dataflow():
            a = R.builtin.stop_lift_params(x)
            b = R.multiply(a, a)
            R.output(b)
        y = b
        return y
