from tvm.script.parser import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2)), R.device_mesh((2, 2), I.Range(0, 4))]})

    @R.function
    def main(x: R.Tensor((5,), "float32")) -> R.Object:
        z = R.dist.redistribute_replica_to_shard(x, num_workers=2, axis=0)
        return z
