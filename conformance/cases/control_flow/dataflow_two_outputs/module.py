from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
        with R.dataflow():
            a = R.add(x, x)
            b = R.multiply(a, a)
            c = R.subtract(b, a)
            R.output(a, c)
        return (a, c)
