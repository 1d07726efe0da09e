from tvm.script.parser import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2)), R.device_mesh((2, 2), I.Range(0, 4))]})

    @T.prim_func(s_tir=True)
    def add_one(a: T.Buffer((T.int64(2), T.int64(8)), "float32"), b: T.Buffer((T.int64(2), T.int64(8)), "float32")):
        for i, j in T.grid(T.int64(2), T.int64(8)):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                b[vi, vj] = a[vi, vj] + T.float32(1)

    @R.function
    def main(x: R.DTensor((4, 8), "float32", "mesh[0]", "S[0]")) -> R.DTensor((4, 8), "float32", "mesh[0]", "S[1]"):
        cls = Module
        y = R.dist.call_tir_local_view(cls.add_one, (x,), out_sinfo=R.DTensor((4, 8), "float32", "mesh[0]", "S[0]"))
        z = R.dist.redistribute_replica_to_shard(R.dist.redistribute(y, "mesh[0]", "R"), num_workers=2, axis=1)
        return z
