from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def scale(k: R.Prim(value="n"), x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 2",), "float32"):
        n = T.int64()
        y = R.concat((x, x), axis=0)
        return y

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m * 2",), "float32"):
        m = T.int64()
        cls = Module
        with R.dataflow():
            a = R.multiply(x, x)
            b = cls.scale(R.prim_value(m), a)
            c = R.add(b, b)
            R.output(c)
        return c
