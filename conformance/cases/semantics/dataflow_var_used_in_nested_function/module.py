from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        with R.dataflow():
            lv = R.add(x, x)

            @R.function
            def f(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
                z = R.add(y, lv)
                return z

            gv = f(x)
            R.output(gv)
        return gv
