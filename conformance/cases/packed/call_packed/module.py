from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Shape(ndim=2)):
        n = T.int64()
        y = R.call_packed("conformance.add", x, x, sinfo_args=R.Tensor((n,), "float32"))
        s = R.call_packed("conformance.identity", R.shape([n, 2]), sinfo_args=R.Shape(ndim=2))
        return (y, s)
