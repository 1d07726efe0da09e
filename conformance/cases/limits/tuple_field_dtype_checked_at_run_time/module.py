from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(v: R.Tensor("float32", ndim=1), w: R.Tensor(ndim=1)):
        z = R.zeros(R.shape([1]), "float32")
        y = R.concat((z, v, w), axis=0)
        return y
