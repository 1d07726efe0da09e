from tvm.script.parser import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2)), R.device_mesh((2, 2), I.Range(0, 4))]})

    @R.function
    def main(x: R.DTensor((4,), "float32", "mesh[0]", "S[0]"), t: R.Tensor((4, 3), "float32")) -> R.Tuple(R.DTensor((4,), "float32", "mesh[0]", "S[0]"), R.Tensor((2, 3), "float32"), R.Tensor((4, 3), "float32"), R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32")):
        s: R.Tensor((2, 3), "float32") = R.ccl.scatter_from_worker0(t, num_workers=2, axis=0)
        g: R.Tensor((4, 3), "float32") = R.ccl.allgather(s, num_workers=2)
        b: R.Tensor((2, 3), "float32") = R.ccl.broadcast_from_worker0(s)
        m: R.Tensor((2, 3), "float32") = R.ccl.allreduce(s, op_type="max")
        v: R.Tensor((2, 3), "float32") = R.ccl.allreduce(s, op_type="avg")
        return (x, s, g, b, m, v)
