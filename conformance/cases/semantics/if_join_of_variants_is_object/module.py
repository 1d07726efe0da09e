from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(c: R.Prim("bool"), x: R.Tensor((2,), "float32")) -> R.Object:
        if c:
            r = x
        else:
            r = R.shape([2, 5])
        return r
