from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")) -> R.Tensor((3,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            R.output(a)
        if c:
            b = R.multiply(a, a)
        else:
            b = a
        with R.dataflow():
            d = R.subtract(b, x)
            e = R.add(d, d)
            R.output(e)
        return e
