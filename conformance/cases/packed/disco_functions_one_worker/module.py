from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tuple(R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32"), R.Tensor((1,), "int64")):
        a = R.call_dps_packed("runtime.disco.allreduce", (x, R.shape([3]), R.prim_value(T.bool(True))), out_sinfo=R.Tensor((2, 3), "float32"))
        g = R.call_dps_packed("runtime.disco.allgather", (x, R.prim_value(T.bool(True))), out_sinfo=R.Tensor((2, 3), "float32"))
        b = R.call_dps_packed("runtime.disco.broadcast_from_worker0", (x, R.prim_value(T.bool(False))), out_sinfo=R.Tensor((2, 3), "float32"))
        y = R.reshape(x, R.shape([1, 2, 3]))
        s = R.call_dps_packed("runtime.disco.scatter_from_worker0", (y, R.prim_value(T.bool(False))), out_sinfo=R.Tensor((2, 3), "float32"))
        w = R.call_pure_packed("runtime.disco.worker_id", sinfo_args=(R.Shape(ndim=-1),))
        v = R.match_cast(w, R.Shape(ndim=1))
        r = R.shape_to_tensor(v)
        return (a, g, b, s, r)
