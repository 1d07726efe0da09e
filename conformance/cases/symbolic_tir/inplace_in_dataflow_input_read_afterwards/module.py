from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def double_into(a: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        for i in range(n):
            with T.sblock("double"):
                vi = T.axis.spatial(n, i)
                A[vi] = A[vi] * T.float32(2)

    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            a = R.add(x, y)
            b = R.call_tir_inplace(cls.double_into, (a,), inplace_indices=[0], out_sinfo=R.Tensor((n,), "float32"))
            c = R.add(a, y)
            d = R.add(b, c)
            R.output(d)
        return d
