from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 2), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((3,), "int64"):
        R.call_packed("relax.run.print", R.str("x={} n={}"), x, R.prim_value(3), sinfo_args=(R.Tuple,))
        R.call_packed("relax.run.assert_op", c, R.str("x={}"), x, sinfo_args=(R.Tuple,))
        t = R.call_pure_packed("relax.run.shape_to_tensor", R.shape([2, 7, 0]), sinfo_args=(R.Tensor((3,), "int64"),))
        return t
