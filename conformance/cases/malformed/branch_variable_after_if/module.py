from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")):
        if c:
            a = R.add(x, x)
            y = a
        else:
            y = x
        return a
