from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def unpack(t: R.Tuple(R.Tensor(("n",), "float32"), R.Tuple(R.Tensor(("n", "m"), "float32"), R.Prim(value="m")))) -> R.Tensor(("n", "m"), "float32"):
        n = T.int64()
        m = T.int64()
        v = t[0]
        inner = t[1]
        w = inner[0]
        a = R.reshape(v, R.shape([n, 1]))
        p = R.add(w, a)
        return p

    @R.function
    def main(v: R.Tensor(("a",), "float32"), w: R.Tensor(("a", "b"), "float32")) -> R.Tensor(("a", "b"), "float32"):
        b = T.int64()
        cls = Module
        t = (v, (w, R.prim_value(b)))
        r = cls.unpack(t)
        return r
