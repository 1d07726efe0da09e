from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):
        with R.dataflow():
            R.assert_op(c, format="c")
            y = R.add(x, x)
            R.output(y)
        return y
