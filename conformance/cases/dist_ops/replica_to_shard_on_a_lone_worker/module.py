from tvm.script.parser import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2)), R.device_mesh((2, 2), I.Range(0, 4))]})

    @R.function
    def main(t: R.Tensor((4, 6), "float32")) -> R.Tensor((4, 3), "float32"):
        s: R.Tensor((4, 3), "float32") = R.dist.redistribute_replica_to_shard(t, num_workers=2, axis=1)
        return s
