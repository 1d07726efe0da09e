from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def both(x: R.Tensor((2,), "float32"), c: R.Tensor((2,), "float32")) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
        s = R.add(x, c)
        p = R.multiply(x, c)
        return (s, p)

    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32"), c: R.Tensor((2,), "float32")) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
        cls = Module
        clo = R.make_closure(cls.both, (c,))
        r = R.invoke_closure(clo, (x,), sinfo_args=[R.Tensor((2,), "float32"), R.Tensor((2,), "float32")])
        return r
