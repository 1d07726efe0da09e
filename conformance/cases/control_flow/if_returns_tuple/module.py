from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "int32"), c: R.Prim("bool")) -> R.Tuple(R.Tensor((2,), "int32"), R.Shape(ndim=1)):
        if c:
            r = (x, R.shape([1]))
        else:
            r = (R.add(x, x), R.shape([2]))
        return r
