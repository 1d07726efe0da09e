from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def ask(f: R.Callable((R.Prim(value="n"),), R.Prim(value="n")), x: R.Tensor(("m",), "float32")) -> R.Prim(value="m"):
        m = T.int64()
        p = f(R.prim_value(m))
        return p

    @R.function
    def succ(k: R.Prim("int64")) -> R.Prim("int64"):
        j = T.int64()
        q = R.match_cast(k, R.Prim(value=j))
        r = R.prim_value(j + 1)
        return r

    @R.function
    def ident(k: R.Prim("int64")) -> R.Prim("int64"):
        return k

    @R.function
    def main(x: R.Tensor(("m",), "float32"), c: R.Prim("bool")) -> R.Prim("int64"):
        cls = Module
        if c:
            r = cls.ask(cls.ident, x)
        else:
            r = cls.ask(cls.succ, x)
        return r
