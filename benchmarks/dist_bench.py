"""Tensor parallelism on JAX: relax_jax's local view against a hand-written ``shard_map`` program.

Run ``python benchmarks/dist_bench.py`` (``--json out.json`` to keep the figures, ``--quick`` for fewer
rounds, ``--meshes 1,2,4,8``). The script asks XLA for 8 host CPU devices before JAX starts.

Workloads (Megatron-LM's sharding, written once as DTensor programs with the builder):

* ``mlp``: the SiLU-gated MLP, gate and up projections split by columns (``S[1]``), the down
  projection by rows (``S[0]``), one ``R.ccl.allreduce``;
* ``decoder``: one decoder layer of ``examples/llama_tp.py`` (RMSNorm, attention with its heads split,
  RMSNorm, the MLP above), two allreduces.

Contenders, alternated call by call in one run on the same placed arguments:

* ``relax_jax``: ``relax_jax.local_view.LocalView`` of the module (the workers as ``vmap`` lanes
  partitioned over a mesh of ``m`` devices, each device given its worker's shards), its compiled
  function;
* ``relax_jax[fast]``: the same with ``float_rules="fast"`` (XLA's own arithmetic rewrites);
* ``relax_jax[shard_map]``: the same under ``jax.shard_map`` (``LocalView(..., shard_map=True)``, each
  argument placed with the ``NamedSharding`` of its placement), the strict rules;
* ``shard_map``: the same computation written by hand with ``jax.shard_map`` and ``lax.psum``, as a JAX
  user writes it (the decoder's projections and output projection as ``einsum``s);
* ``shard_map[strict XLA]``: the hand-written program compiled with the XLA options of the strict
  floating-point rules (``relax_jax.float_rules.STRICT_OPTIONS``: XLA's algebraic simplifier off):
  what those options cost a ``shard_map`` program (the copies ``shard_map`` puts at its boundary
  stay);
* ``shard_map[same ops]`` (decoder): the hand-written program with the Relax program's operations
  (broadcasting ``matmul`` projections; the attention output transposed and reshaped to ``(tokens,
  heads * head_dim)`` for the output projection), which separates the executor's cost from the
  program's formulation.

Per mesh size the table gives both medians, the ratio (median of the per-pair ratios), the scaling
(time on 1 device / time on ``m``) and the bytes communicated per step, read from the collectives of
the compiled HLO of relax_jax's program (operation and result shape) and checked against the
expected collectives: one all-reduce of the ``(tokens, hidden)`` float32 activations per allreduce of
the program. ``ring bytes/device`` is what a ring all-reduce sends per device:
``2 (m - 1) / m`` times the payload.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

from relax_ref.builder import BlockBuilder, op, var  # noqa: E402
import relax_jax  # noqa: E402
from relax_jax.float_rules import STRICT_OPTIONS  # noqa: E402
from relax_jax.local_view import LocalView  # noqa: E402

import llama_tp  # noqa: E402


class Size:
    tokens = 128
    hidden = 512
    heads = 8
    head_dim = 64
    intermediate = 1536
    rms_eps = 1e-5
    rope_theta = 10000.0
    vocab_size = 16           # unused by one layer; llama_tp.tp_inputs reads it
    num_layers = 1

    @property
    def num_heads(self):
        return self.heads

    @property
    def intermediate_size(self):
        return self.intermediate


# ---------------------------------------------------------------------------------------------------
# Modules (the builder, DTensors) and their hand-written counterparts
# ---------------------------------------------------------------------------------------------------


def mlp_module(cfg: Size, m: int):
    base = llama_tp._base(m)
    d = llama_tp._Builder(base.global_infos["mesh"][0])
    bb = BlockBuilder(base)
    T, H, I = cfg.tokens, cfg.hidden, cfg.intermediate
    x = var("x", d.dt((T, H), "float32", "R"))
    wg, wu = var("gate", d.dt((H, I), "float32", "S[1]")), var("up", d.dt((H, I), "float32", "S[1]"))
    wd = var("down", d.dt((I, H), "float32", "S[0]"))
    with bb.function("main", [x, wg, wu, wd]):
        with bb.dataflow():
            g = bb.emit(op.multiply(op.nn.silu(op.matmul(x, wg)), op.matmul(x, wu)))
            y = bb.emit(op.matmul(g, wd))
            out = bb.emit_output(op.ccl.allreduce(y, op_type="sum"))
        bb.emit_func_output(out)
    return bb.get()


def mlp_hand(x, wg, wu, wd):
    g = jax.nn.silu(x @ wg) * (x @ wu)
    return lax.psum(g @ wd, "m0")


def mlp_args(cfg: Size, rng):
    T, H, I = cfg.tokens, cfg.hidden, cfg.intermediate
    return [rng.standard_normal((T, H)).astype("float32"),
            (rng.standard_normal((H, I)) / np.sqrt(H)).astype("float32"),
            (rng.standard_normal((H, I)) / np.sqrt(H)).astype("float32"),
            (rng.standard_normal((I, H)) / np.sqrt(I)).astype("float32")]


MLP_SPECS = (P(), P(None, "m0"), P(None, "m0"), P("m0", None))



def decoder_module(cfg: Size, m: int):
    return llama_tp.layer_module(m, cfg.tokens, cfg.hidden, cfg.heads, cfg.head_dim, cfg.intermediate)


def _rms(x, w, eps):
    return x * lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps) * w


def decoder_hand(h, cos, sin, rot, mask, eps, scale, n1, wq, wk, wv, wo, n2, wg, wu, wd):
    x = _rms(h, n1, eps)
    q, k, v = (jnp.einsum("th,nhd->ntd", x, w) for w in (wq, wk, wv))
    q = q * cos + (q @ rot) * sin
    k = k * cos + (k @ rot) * sin
    s = jnp.einsum("ntd,nsd->nts", q, k) * scale + mask
    o = jax.nn.softmax(s, axis=-1) @ v
    h = h + lax.psum(jnp.einsum("ntd,ndh->th", o, wo.reshape(o.shape[0], o.shape[2], -1)), "m0")
    x = _rms(h, n2, eps)
    g = jax.nn.silu(x @ wg) * (x @ wu)
    return h + lax.psum(g @ wd, "m0")


def decoder_hand_same_ops(h, cos, sin, rot, mask, eps, scale, n1, wq, wk, wv, wo, n2, wg, wu, wd):
    """``decoder_hand`` with the operations of the Relax program: the projections as broadcasting
    ``matmul``s, the attention output transposed and reshaped to ``(tokens, heads * head_dim)`` for
    the output projection."""
    x = _rms(h, n1, eps)
    q, k, v = (jnp.matmul(x, w) for w in (wq, wk, wv))
    q = q * cos + (q @ rot) * sin
    k = k * cos + (k @ rot) * sin
    s = jnp.matmul(q, jnp.transpose(k, (0, 2, 1))) * scale + mask
    o = jax.nn.softmax(s, axis=-1) @ v
    h = h + lax.psum(jnp.transpose(o, (1, 0, 2)).reshape(o.shape[1], -1) @ wo, "m0")
    x = _rms(h, n2, eps)
    g = jax.nn.silu(x @ wg) * (x @ wu)
    return h + lax.psum(g @ wd, "m0")


def decoder_args(cfg: Size, rng):
    T, H, nh, hd, I = cfg.tokens, cfg.hidden, cfg.heads, cfg.head_dim, cfg.intermediate
    consts = llama_tp.tp_inputs(cfg, list(range(T)))[2:]        # cos, sin, rot, mask, eps, scale
    f = lambda *s: (rng.standard_normal(s) / np.sqrt(s[-2] if len(s) > 1 else 1)).astype("float32")
    ws = [1 + 0.1 * f(H), f(nh, H, hd), f(nh, H, hd), f(nh, H, hd), f(nh * hd, H), 1 + 0.1 * f(H),
          f(H, I), f(H, I), f(I, H)]
    return [rng.standard_normal((T, H)).astype("float32"), *consts, *ws]


DEC_SPECS = (P(),) * 7 + (P(), P("m0"), P("m0"), P("m0"), P("m0"), P(), P(None, "m0"), P(None, "m0"), P("m0", None))

WORKLOADS = {
    "mlp": (mlp_module, mlp_hand, mlp_args, MLP_SPECS, 1),
    "decoder": (decoder_module, decoder_hand, decoder_args, DEC_SPECS, 2),
}
#: a second hand-written program per workload, with the Relax program's operations (None: the same)
SAME_OPS = {"mlp": None, "decoder": decoder_hand_same_ops}

# ---------------------------------------------------------------------------------------------------
# Collectives of the compiled program
# ---------------------------------------------------------------------------------------------------

_BYTES = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "s32": 4, "s64": 8, "u32": 4, "u64": 8, "s8": 1, "u8": 1,
          "pred": 1, "s16": 2, "u16": 2}
_COLLECTIVE = re.compile(r"= (\(.*?\)|\S+) (all-reduce|all-gather|reduce-scatter|all-to-all|collective-permute)"
                         r"(-start)?\(")


def collectives(hlo: str) -> List[dict]:
    """``{op, shapes, bytes}`` of every collective of an optimized HLO module (the result type of an
    asynchronous ``-start`` is its operand's for all-reduce)."""
    out = []
    for m in _COLLECTIVE.finditer(hlo):
        shapes = re.findall(r"(\w+)\[([\d,]*)\]", m.group(1))
        nbytes = sum(_BYTES.get(dt, 4) * int(np.prod([int(x) for x in dims.split(",") if x] or [1]))
                     for dt, dims in shapes)
        out.append({"op": m.group(2), "shapes": [f"{dt}[{dims}]" for dt, dims in shapes], "bytes": nbytes})
    return out


# ---------------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------------


def _block(x):
    for leaf in jax.tree_util.tree_leaves(x):
        leaf.block_until_ready()


def interleaved(contenders: Dict[str, Callable[[], object]], rounds: int, calls: int) -> Dict[str, List[float]]:
    """Per-call alternation (the order rotating each round) after one untimed call each per round."""
    names = list(contenders)
    times: Dict[str, List[float]] = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            _block(contenders[n]())
        for _ in range(calls):
            for n in order:
                t0 = time.perf_counter()
                _block(contenders[n]())
                times[n].append(time.perf_counter() - t0)
        time.sleep(0.02)
    return times


def bench_one(name: str, cfg: Size, m: int, rounds: int, calls: int) -> dict:
    build, hand, make_args, specs, n_reduce = WORKLOADS[name]
    args = make_args(cfg, np.random.default_rng(0))
    mod = build(cfg, m)
    view = LocalView(mod, "main")
    fast = LocalView(relax_jax.compile(mod, float_rules="fast"), "main")
    under_sm = LocalView(mod, "main", shard_map=True)
    assert view.lanes and not view.simulated
    fn, placed = view.compile(*args)
    fast_fn, fast_placed = fast.compile(*args)
    sm_fn, sm_placed = under_sm.compile(*args)
    hlo = view.compiled_text(*args)
    mine = lambda: fn(*placed)
    mine_fast = lambda: fast_fn(*fast_placed)
    hand_fn = jax.jit(jax.shard_map(hand, mesh=view.jmesh, in_specs=specs, out_specs=P(), check_vma=False))
    hand_args = [jax.device_put(a, NamedSharding(view.jmesh, s)) for a, s in zip(args, specs)]
    theirs = lambda: hand_fn(*hand_args)
    hand_strict = hand_fn.lower(*hand_args).compile(STRICT_OPTIONS)
    same = SAME_OPS[name]
    same_fn = jax.jit(jax.shard_map(same, mesh=view.jmesh, in_specs=specs, out_specs=P(), check_vma=False)) \
        if same is not None else None
    got = np.asarray(view(*args))
    want = np.asarray(theirs())
    err = float(np.abs(got - want).max() / max(1.0, float(np.abs(want).max())))
    got_sm = np.asarray(under_sm(*args))
    err_sm = float(np.abs(got_sm - want).max() / max(1.0, float(np.abs(want).max())))
    contenders = {"relax_jax": mine, "relax_jax[fast]": mine_fast, "relax_jax[shard_map]": lambda: sm_fn(*sm_placed),
                  "shard_map": theirs, "shard_map[strict XLA]": lambda: hand_strict(*hand_args)}
    if same_fn is not None:
        contenders["shard_map[same ops]"] = lambda: same_fn(*hand_args)
    t = interleaved(contenders, rounds, calls)
    same_ms = 1e3 * statistics.median(t["shard_map[same ops]"]) if same_fn is not None else None
    ratio_same = statistics.median([a / b for a, b in zip(t["relax_jax"], t["shard_map[same ops]"])]) \
        if same_fn is not None else None
    ratios = [a / b for a, b in zip(t["relax_jax"], t["shard_map"])]
    ratios_fast = [a / b for a, b in zip(t["relax_jax[fast]"], t["shard_map"])]
    ratios_sm = [a / b for a, b in zip(t["relax_jax[shard_map]"], t["shard_map"])]
    ratios_strict_xla = [a / b for a, b in zip(t["relax_jax"], t["shard_map[strict XLA]"])]
    hand_strict_cost = [a / b for a, b in zip(t["shard_map[strict XLA]"], t["shard_map"])]
    coll = collectives(hlo)
    payload = cfg.tokens * cfg.hidden * 4
    reduces = [c for c in coll if c["op"] == "all-reduce" and c["bytes"] == payload]
    others = [c for c in coll if c not in reduces]
    return {"workload": name, "mesh": m,
            "relax_jax_ms": 1e3 * statistics.median(t["relax_jax"]),
            "shard_map_ms": 1e3 * statistics.median(t["shard_map"]),
            "relax_jax_fast_ms": 1e3 * statistics.median(t["relax_jax[fast]"]),
            "ratio": statistics.median(ratios), "ratio_fast": statistics.median(ratios_fast), "max_rel_diff": err,
            "max_rel_diff_shard_map": err_sm,
            "relax_jax_shard_map_ms": 1e3 * statistics.median(t["relax_jax[shard_map]"]),
            "ratio_shard_map": statistics.median(ratios_sm),
            "shard_map_strict_xla_ms": 1e3 * statistics.median(t["shard_map[strict XLA]"]),
            "ratio_vs_strict_xla": statistics.median(ratios_strict_xla),
            "strict_xla_cost": statistics.median(hand_strict_cost),
            "shard_map_same_ops_ms": same_ms, "ratio_same_ops": ratio_same,
            "collectives": coll, "expected": {"all-reduce": n_reduce, "bytes_each": payload},
            "collectives_as_expected": (len(reduces) == n_reduce and not others) if m > 1 else
            all(c["op"] == "all-reduce" for c in coll),
            "bytes_per_step": sum(c["bytes"] for c in coll) if m > 1 else 0,
            "ring_bytes_per_device": sum(c["bytes"] for c in coll) * 2 * (m - 1) / m}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--json", help="write the figures to this file")
    p.add_argument("--quick", action="store_true", help="fewer rounds")
    p.add_argument("--meshes", default="1,2,4,8")
    p.add_argument("--only", default="mlp,decoder")
    args = p.parse_args(argv)
    rounds, calls = (5, 3) if args.quick else (20, 5)
    meshes = [int(s) for s in args.meshes.split(",")]
    load_before = os.getloadavg()
    rows = []
    for name in args.only.split(","):
        for m in meshes:
            r = bench_one(name, Size(), m, rounds, calls)
            rows.append(r)
            print(f"{name:8s} mesh {m}: relax_jax {r['relax_jax_ms']:8.3f} ms  [fast] {r['relax_jax_fast_ms']:8.3f} ms  "
                  f"shard_map {r['shard_map_ms']:8.3f} ms  ratio {r['ratio']:.3f} [fast] {r['ratio_fast']:.3f} "
                  f"[shard_map] {r['ratio_shard_map']:.3f}  "
                  f"vs same ops {r['ratio_same_ops'] if r['ratio_same_ops'] is None else round(r['ratio_same_ops'], 3)}  "
                  f"vs strict XLA {r['ratio_vs_strict_xla']:.3f} (hand strict/default {r['strict_xla_cost']:.3f})  collectives {[(c['op'], c['bytes']) for c in r['collectives']]}  "
                  f"as expected: {r['collectives_as_expected']}  diff {r['max_rel_diff']:.1e}", flush=True)
    for name in args.only.split(","):
        base = {k: next(r[k] for r in rows if r["workload"] == name and r["mesh"] == meshes[0])
                for k in ("relax_jax_ms", "relax_jax_fast_ms", "shard_map_ms")}
        for r in rows:
            if r["workload"] == name:
                r["scaling_relax_jax"] = base["relax_jax_ms"] / r["relax_jax_ms"]
                r["scaling_shard_map"] = base["shard_map_ms"] / r["shard_map_ms"]
                r["scaling_relax_jax_fast"] = base["relax_jax_fast_ms"] / r["relax_jax_fast_ms"]
    print("\n| workload | mesh | relax_jax (ms) | relax_jax[fast] (ms) | shard_map (ms) | ratio | ratio [fast] |"
          " ratio [shard_map] | shard_map[strict XLA] / shard_map | ratio vs strict XLA | ratio vs same ops |"
          " scaling relax_jax | scaling shard_map | bytes/step (HLO) | ring bytes/device | collectives as expected |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        same = "" if r["ratio_same_ops"] is None else f"{r['ratio_same_ops']:.3f}"
        print(f"| {r['workload']} | {r['mesh']} | {r['relax_jax_ms']:.2f} | {r['relax_jax_fast_ms']:.2f} | "
              f"{r['shard_map_ms']:.2f} | {r['ratio']:.3f} | {r['ratio_fast']:.3f} | {r['ratio_shard_map']:.3f} | "
              f"{r['strict_xla_cost']:.3f} | "
              f"{r['ratio_vs_strict_xla']:.3f} | {same} | {r['scaling_relax_jax']:.2f}x | {r['scaling_shard_map']:.2f}x | "
              f"{r['bytes_per_step']:,} | {r['ring_bytes_per_device']:,.0f} | {r['collectives_as_expected']} |")
    load_after = os.getloadavg()
    print(f"\nload average before {load_before[0]:.2f}, after {load_after[0]:.2f}; {os.cpu_count()} CPUs; "
          f"jax {jax.__version__}, {len(jax.devices())} host devices")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "load_before": load_before, "load_after": load_after,
                                               "cpus": os.cpu_count(), "jax": jax.__version__,
                                               "rounds": rounds, "calls": calls}, indent=1))
    return 0 if all(max(r["max_rel_diff"], r["max_rel_diff_shard_map"]) < 1e-4 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
