from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def want(k: R.Prim(value=4)) -> R.Prim("int64"):
        return k

    @R.function
    def main(c: R.Prim("bool")) -> R.Prim("int64"):
        cls = Module
        if c:
            p = R.prim_value(T.int64(3))
        else:
            p = R.prim_value(T.int64(4))
        r = cls.want(p)
        return r
