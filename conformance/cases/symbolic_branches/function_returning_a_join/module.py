from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def pick(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")):
        n = T.int64()
        if c:
            r = R.add(x, x)
        else:
            one = R.ones(R.shape([1]), "float32")
            r = R.concat((x, one), axis=0)
        return r

    @R.function
    def pair(a: R.Tensor(("k",), "float32"), b: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
        r = R.add(a, b)
        return r

    @R.function
    def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(("n",), "float32"):
        cls = Module
        p = cls.pick(x, c)
        r = cls.pair(p, x)
        return r
