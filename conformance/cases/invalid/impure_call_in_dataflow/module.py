from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32")):
        with R.dataflow():
            y = R.add(x, x)
            R.print(y, format="{}")
            z = R.multiply(y, y)
            R.output(z)
        return z
