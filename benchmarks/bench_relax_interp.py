"""The reference interpreter on programs legalized by TVM: a 2-layer MLP and a transformer decoder
layer.

    python benchmarks/bench_relax_interp.py [--repeat 3] [--check]

TVM (``apache-tvm``) generates the legalized text (``relax.transform.LegalizeOps()`` then
``mod.script()``); relax-ref parses it and interprets it. Targets: MLP (n=32, 512 -> 2048 -> 512)
under 1 s; decoder layer (hidden 256, seq 32, 4 heads) under 5 s. ``--check`` also compares with TVM's
VM. Without TVM the script says so and exits.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

MLP = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((32, 512), "float32"), w1: R.Tensor((512, 2048), "float32"), b1: R.Tensor((2048,), "float32"),
             w2: R.Tensor((2048, 512), "float32"), b2: R.Tensor((512,), "float32")):
        with R.dataflow():
            h = R.matmul(x, w1)
            hb = R.add(h, b1)
            g = R.nn.gelu(hb)
            y = R.matmul(g, w2)
            yb = R.add(y, b2)
            R.output(yb)
        return yb
'''

DECODER = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((32, 256), "float32"), g1: R.Tensor((256,), "float32"), wq: R.Tensor((256, 256), "float32"),
             wk: R.Tensor((256, 256), "float32"), wv: R.Tensor((256, 256), "float32"), wo: R.Tensor((256, 256), "float32"),
             g2: R.Tensor((256,), "float32"), w_up: R.Tensor((256, 1024), "float32"), w_gate: R.Tensor((256, 1024), "float32"),
             w_down: R.Tensor((1024, 256), "float32")):
        with R.dataflow():
            h = R.nn.rms_norm(x, g1, axes=[-1])
            q = R.matmul(h, wq)
            k = R.matmul(h, wk)
            v = R.matmul(h, wv)
            q4 = R.permute_dims(R.reshape(q, R.shape([32, 4, 64])), axes=[1, 0, 2])
            k4 = R.permute_dims(R.reshape(k, R.shape([32, 4, 64])), axes=[1, 2, 0])
            v4 = R.permute_dims(R.reshape(v, R.shape([32, 4, 64])), axes=[1, 0, 2])
            s = R.multiply(R.matmul(q4, k4), R.const(0.125, "float32"))
            p = R.nn.softmax(s, axis=-1)
            o = R.matmul(p, v4)
            o2 = R.reshape(R.permute_dims(o, axes=[1, 0, 2]), R.shape([32, 256]))
            x2 = R.add(x, R.matmul(o2, wo))
            h2 = R.nn.rms_norm(x2, g2, axes=[-1])
            up = R.matmul(h2, w_up)
            gate = R.nn.silu(R.matmul(h2, w_gate))
            y = R.add(x2, R.matmul(R.multiply(up, gate), w_down))
            R.output(y)
        return y
'''


def legalized(text: str):
    from tvm import relax
    from tvm.script import from_source

    mod = relax.transform.LegalizeOps()(from_source(text))
    return mod, mod.script()


def inputs_for(mod, rng):
    out = []
    for p in mod["main"].params:
        shape = [int(d) for d in p.struct_info.shape]
        out.append((rng.standard_normal(shape) * (0.05 if len(shape) == 2 and shape[0] >= 256 else 1.0))
                   .astype(np.float32))
    return out


def bench(name: str, text: str, target: float, repeat: int, check: bool) -> None:
    import relax_ref
    from relax_ref.interp import Interpreter

    tvm_mod, script = legalized(text)
    t = time.perf_counter()
    mod = relax_ref.parse(script)
    t_parse = time.perf_counter() - t
    args = inputs_for(tvm_mod, np.random.default_rng(0))
    interp = Interpreter(mod)
    t = time.perf_counter()
    out = interp("main", *args)
    t_first = time.perf_counter() - t
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = interp("main", *args)
        times.append(time.perf_counter() - t)
    med = statistics.median(times)
    print(f"{name}: {len(mod)} functions ({sum(1 for g in mod if g != 'main')} PrimFuncs)")
    print(f"  parse + normalize:            {t_parse * 1e3:8.1f} ms")
    print(f"  first run (compiles TIR):     {t_first * 1e3:8.1f} ms")
    print(f"  steady state (median of {repeat}):  {med * 1e3:8.1f} ms   target < {target:.0f} s: "
          f"{'met' if med < target else 'MISSED'}")
    if check:
        import tvm
        from tvm import relax

        vm = relax.VirtualMachine(relax.build(tvm_mod, "llvm"), tvm.cpu())
        ref = vm["main"](*[tvm.runtime.tensor(a) for a in args]).numpy()
        print(f"  max |relax-ref - TVM VM|:      {float(np.abs(out - ref).max()):.2e}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--check", action="store_true", help="compare with TVM's VM")
    args = ap.parse_args()
    try:
        import tvm  # noqa: F401
    except ImportError:
        print("TVM (apache-tvm) is not installed: it is needed to generate the legalized programs; skipped.")
        return
    bench("MLP n=32, 512 -> 2048 -> 512 (gelu)", MLP, 1.0, args.repeat, args.check)
    bench("decoder layer hidden 256, seq 32, 4 heads (rms_norm, attention, SiLU-gated MLP)", DECODER, 5.0,
          args.repeat, args.check)


if __name__ == "__main__":
    main()
