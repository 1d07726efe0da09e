from tvm.script.parser import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2)), R.device_mesh((2, 2), I.Range(0, 4))]})

    @T.prim_func(s_tir=True)
    def double(a: T.Buffer((T.int64(4), T.int64(8)), "float32"), b: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        for i, j in T.grid(T.int64(4), T.int64(8)):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                b[vi, vj] = a[vi, vj] * T.float32(2)

    @R.function
    def main(x: R.DTensor((4, 8), "float32", "mesh[0]", "S[0]")) -> R.DTensor((4, 8), "float32", "mesh[0]", "S[0]"):
        cls = Module
        y = R.dist.call_tir(cls.double, (x,), out_sinfo=R.DTensor((4, 8), "float32", "mesh[0]", "S[0]"))
        return y
