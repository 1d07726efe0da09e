from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        k = T.int64()
        y = R.call_pure_packed("conformance.add", x, x, sinfo_args=R.Tensor(ndim=1, dtype="float32"))
        z = R.match_cast(y, R.Tensor((k,), "float32"))
        w = R.add(z, z)
        return w
