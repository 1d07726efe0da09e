"""Tensor parallelism for the tiny Llama-style decoder (``llama_tiny.py --mesh N``), as Megatron-LM
shards it: every DTensor program of this file is built with the builder on a 1-d device mesh of
``N`` workers.

* Attention: the query, key and value projections are split by heads (weights ``(heads, hidden,
  head_dim)``, placement ``S[0]``), each worker attends with its heads; the attention output
  ``(heads, n, head_dim)`` becomes ``(n, heads * head_dim)`` (``permute_dims`` and ``reshape``: the
  head axis stays sharded, DIST.OP.2, and a worker reshapes its block, DIST.LOCAL.4), and the output
  projection ``(heads * head_dim, hidden)`` is split by rows (``S[0]``) as TVM's and Megatron's
  tensor-parallel models split it; the contraction leaves each worker a partial sum that one
  ``R.ccl.allreduce`` completes.
* MLP: the gate and up projections are split by columns (``S[1]``), the down projection by rows
  (``S[0]``); one ``R.ccl.allreduce`` per block again.
* Everything else (embedding, norms, LM head) is replicated (``R``).

The program uses only operators with a sharding rule (DIST.OP.2): ``matmul`` (the projections, with
the heads as a batch axis), elementwise operators, ``softmax``, reductions, ``permute_dims`` and
``reshape``. So the embedding is a one-hot ``matmul`` (``equal`` against the vocabulary ids), RMSNorm
is written out (``x * rsqrt(mean(x*x) + eps) * w``), ``rotate_half`` is a ``matmul`` with a signed
permutation, the causal mask is added, and the constants (``eps``, the attention scale, the rotary
tables, the vocabulary ids) are replicated inputs computed on the host. There is no KV cache: each step runs the
whole sequence (``forward(tokens (n, 1), ...) -> logits (n, vocab)``), so greedy decoding is the
single-device model's.

The same module runs in both views: in the local view (``relax_ref.interp.workers.evaluate_local``,
``relax_jax.local_view.LocalView``: ``N`` devices) each worker holds its heads and
columns and the allreduces sum the partial results; in the global view (``relax_ref.evaluate``) the
values are the global tensors and an allreduce is the lone worker's identity (DIST.LOCAL.2).
:func:`tp_weights` turns the single-device model's weights into the sharded layout (a loader's job:
the key and value heads of grouped-query attention repeated to the query heads).
"""

from __future__ import annotations

import math
from typing import Dict, List, Sequence

import numpy as np

from relax_ref import IRModule, parse
from relax_ref.builder import BlockBuilder, Tensor, op, var
from relax_ref.ir.distributed import DTensorStructInfo, Placement

HEAD = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n"


def _base(n: int) -> IRModule:
    """An empty module whose global infos hold the mesh ``mesh[0]`` of ``n`` workers."""
    return parse(HEAD + f'''@I.ir_module
class Module:
    I.module_global_infos({{"mesh": [R.device_mesh(({n},), I.Range(0, {n}))]}})
''')


class _Builder:
    def __init__(self, mesh) -> None:
        self.mesh = mesh

    def dt(self, shape, dtype: str, placement: str) -> DTensorStructInfo:
        return DTensorStructInfo.of(Tensor(shape, dtype), self.mesh, Placement.from_text(placement))


def _weight_specs(cfg) -> List[tuple]:
    """``(name, global shape, placement)`` of the tensor-parallel weights, in parameter order."""
    H, nh, hd, I, V = cfg.hidden_size, cfg.num_heads, cfg.head_dim, cfg.intermediate_size, cfg.vocab_size
    specs = [("embed", (V, H), "R")]
    for i in range(cfg.num_layers):
        specs += [(f"l{i}_in_norm", (H,), "R"), (f"l{i}_wq", (nh, H, hd), "S[0]"), (f"l{i}_wk", (nh, H, hd), "S[0]"),
                  (f"l{i}_wv", (nh, H, hd), "S[0]"), (f"l{i}_wo", (nh * hd, H), "S[0]"),
                  (f"l{i}_post_norm", (H,), "R"), (f"l{i}_gate", (H, I), "S[1]"), (f"l{i}_up", (H, I), "S[1]"),
                  (f"l{i}_down", (I, H), "S[0]")]
    return specs + [("norm", (H,), "R"), ("lm_head", (H, V), "R")]


def _rms(x, w, eps):
    ss = op.mean(op.multiply(x, x), axis=[-1], keepdims=True)
    return op.multiply(op.multiply(x, op.rsqrt(op.add(ss, eps))), w)


def _layer(bb: BlockBuilder, h, w: Dict[str, object], i: int, c: Dict[str, object]):
    """One decoder layer: attention and MLP, one allreduce each (Megatron's)."""
    x = bb.emit(_rms(h, w[f"l{i}_in_norm"], c["eps"]))
    q, k, v = (bb.emit(op.matmul(x, w[f"l{i}_{p}"])) for p in ("wq", "wk", "wv"))   # (heads, n, head_dim)
    q = bb.emit(op.add(op.multiply(q, c["cos"]), op.multiply(op.matmul(q, c["rot"]), c["sin"])))
    k = bb.emit(op.add(op.multiply(k, c["cos"]), op.multiply(op.matmul(k, c["rot"]), c["sin"])))
    s = bb.emit(op.matmul(q, op.permute_dims(k, [0, 2, 1])))                        # (heads, n, n)
    s = bb.emit(op.add(op.multiply(s, c["scale"]), c["mask"]))
    o = bb.emit(op.matmul(op.nn.softmax(s, axis=-1), v))                             # (heads, n, head_dim)
    n, (heads, _, head_dim) = h.struct_info.shape_values[0], o.struct_info.shape_values
    o = bb.emit(op.reshape(op.permute_dims(o, [1, 0, 2]), (n, heads.value * head_dim.value)))   # S[1]: heads
    part = bb.emit(op.matmul(o, w[f"l{i}_wo"]))                                      # rows of wo: this worker's heads
    h = bb.emit(op.add(h, op.ccl.allreduce(part, op_type="sum")))
    x = bb.emit(_rms(h, w[f"l{i}_post_norm"], c["eps"]))
    g = bb.emit(op.multiply(op.nn.silu(op.matmul(x, w[f"l{i}_gate"])), op.matmul(x, w[f"l{i}_up"])))
    part = bb.emit(op.matmul(g, w[f"l{i}_down"]))                                    # rows of down: partial
    return bb.emit(op.add(h, op.ccl.allreduce(part, op_type="sum")))


def layer_module(num_workers: int, tokens: int, hidden: int, heads: int, head_dim: int,
                 intermediate: int) -> IRModule:
    """``main(h, cos, sin, rot, mask, eps, scale, *weights) -> h``: one decoder layer (:func:`_layer`)
    at static sizes on a mesh of ``num_workers``, the weights in :func:`_weight_specs`' order and
    placements (``benchmarks/dist_bench.py``'s workload)."""
    base = _base(num_workers)
    d = _Builder(base.global_infos["mesh"][0])
    bb = BlockBuilder(base)
    T, H, nh, hd, I = tokens, hidden, heads, head_dim, intermediate
    h = var("h", d.dt((T, H), "float32", "R"))
    c = {"cos": var("cos", d.dt((T, hd), "float32", "R")), "sin": var("sin", d.dt((T, hd), "float32", "R")),
         "rot": var("rot", d.dt((hd, hd), "float32", "R")), "mask": var("mask", d.dt((T, T), "float32", "R")),
         "eps": var("eps", d.dt((1,), "float32", "R")), "scale": var("scale", d.dt((1,), "float32", "R"))}
    shapes = {"in_norm": ((H,), "R"), "wq": ((nh, H, hd), "S[0]"), "wk": ((nh, H, hd), "S[0]"),
              "wv": ((nh, H, hd), "S[0]"), "wo": ((nh * hd, H), "S[0]"), "post_norm": ((H,), "R"),
              "gate": ((H, I), "S[1]"), "up": ((H, I), "S[1]"), "down": ((I, H), "S[0]")}
    w = {f"l0_{k}": var(f"l0_{k}", d.dt(s, "float32", p)) for k, (s, p) in shapes.items()}
    with bb.function("main", [h, *c.values(), *w.values()]):
        with bb.dataflow():
            out = bb.emit_output(_layer(bb, h, w, 0, c))
        bb.emit_func_output(out)
    return bb.get()


def build_tp_module(cfg, num_workers: int) -> IRModule:
    """``forward(tokens, vocab_ids, cos, sin, rot, mask, eps, scale, *weights) -> logits (n, vocab)``
    on a mesh of ``num_workers`` (see the module docstring)."""
    if cfg.num_heads % num_workers or cfg.intermediate_size % num_workers:
        raise ValueError(f"--mesh {num_workers}: the {cfg.num_heads} heads and {cfg.intermediate_size} MLP "
                         f"columns must divide into {num_workers} workers")
    base = _base(num_workers)
    mesh = base.global_infos["mesh"][0]
    d = _Builder(mesh)
    bb = BlockBuilder(base)
    n = bb.sym_var("n")
    hd, V = cfg.head_dim, cfg.vocab_size
    inputs = {"tokens": var("tokens", d.dt((n, 1), "int32", "R")),
              "vocab_ids": var("vocab_ids", d.dt((1, V), "int32", "R")),
              "cos": var("cos", d.dt((n, hd), "float32", "R")), "sin": var("sin", d.dt((n, hd), "float32", "R")),
              "rot": var("rot", d.dt((hd, hd), "float32", "R")), "mask": var("mask", d.dt((n, n), "float32", "R")),
              "eps": var("eps", d.dt((1,), "float32", "R")), "scale": var("scale", d.dt((1,), "float32", "R"))}
    weights = {name: var(name, d.dt(shape, "float32", place)) for name, shape, place in _weight_specs(cfg)}
    with bb.function("forward", [*inputs.values(), *weights.values()], attrs={"num_input": len(inputs)}):
        with bb.dataflow():
            onehot = bb.emit(op.astype(op.equal(inputs["tokens"], inputs["vocab_ids"]), "float32"))
            h = bb.emit(op.matmul(onehot, weights["embed"]))                              # (n, hidden)
            for i in range(cfg.num_layers):
                h = _layer(bb, h, weights, i, inputs)
            logits = bb.emit_output(op.matmul(_rms(h, weights["norm"], inputs["eps"]), weights["lm_head"]))
        bb.emit_func_output(logits)
    return bb.get()


def tp_weights(model) -> List[np.ndarray]:
    """The single-device model's weights in the layout of :func:`build_tp_module` (global tensors)."""
    cfg = model.cfg
    p = {name: prm.data for name, prm in model.named_parameters()}
    H, nh, nkv, hd = cfg.hidden_size, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim

    def heads(w, count):                       # (hidden, count*hd) -> (nh, hidden, hd), kv heads repeated
        w = w.reshape(H, count, hd)
        return np.ascontiguousarray(np.repeat(w, nh // count, axis=1).transpose(1, 0, 2))

    out = [p["embed_weight"]]
    for i in range(cfg.num_layers):
        a, m = f"layers_{i}_attn", f"layers_{i}_mlp"
        out += [p[f"layers_{i}_input_norm_weight"], heads(p[f"{a}_q_proj_weight"], nh),
                heads(p[f"{a}_k_proj_weight"], nkv), heads(p[f"{a}_v_proj_weight"], nkv),
                p[f"{a}_o_proj_weight"],
                p[f"layers_{i}_post_norm_weight"], p[f"{m}_gate_proj_weight"], p[f"{m}_up_proj_weight"],
                p[f"{m}_down_proj_weight"]]
    out += [p["norm_weight"], p["lm_head_weight"]]
    return [np.asarray(w, dtype="float32") for w in out]


def tp_inputs(cfg, tokens: Sequence[int], length: int = 0) -> List[np.ndarray]:
    """The replicated inputs for the sequence ``tokens`` padded with id 0 to ``length``: the rotary
    tables as the single-device model computes them (float32, positions 0..n-1), the rotate-half
    matrix, the causal mask, the constants. Under the causal mask the padding changes no logits of
    the positions before it."""
    tokens = list(tokens) + [0] * max(0, length - len(tokens))
    n, hd, half = len(tokens), cfg.head_dim, cfg.head_dim // 2
    inv_freq = np.exp(np.arange(half, dtype="float32") * np.float32(-2.0 * math.log(cfg.rope_theta) / hd))
    freqs = np.arange(n, dtype="float32")[:, None] * inv_freq[None, :]
    table = np.concatenate([freqs, freqs], axis=1)
    rot = np.zeros((hd, hd), "float32")
    for j in range(half):
        rot[j + half, j] = -1.0                # rotate_half(x)[j] = -x[j + half]
        rot[j, j + half] = 1.0                 # rotate_half(x)[j + half] = x[j]
    mask = np.where(np.tril(np.ones((n, n), bool)), 0.0, -1e9).astype("float32")
    return [np.asarray(tokens, "int32").reshape(n, 1), np.arange(cfg.vocab_size, dtype="int32").reshape(1, -1),
            np.cos(table), np.sin(table), rot, mask, np.asarray([cfg.rms_eps], "float32"),
            np.asarray([1.0 / math.sqrt(hd)], "float32")]


def generate_tp(run, cfg, weights: List[np.ndarray], prompt: Sequence[int], num_tokens: int) -> List[int]:
    """Greedy decoding with the tensor-parallel module: each step runs the whole sequence, padded to its
    final length (one shape: one compilation)."""
    seq = list(prompt)
    length = len(prompt) + num_tokens - 1
    out: List[int] = []
    for _ in range(num_tokens):
        logits = np.asarray(run([*tp_inputs(cfg, seq, length), *weights]))
        nxt = int(np.argmax(logits[len(seq) - 1]))
        out.append(nxt)
        seq.append(nxt)
    return out


def ref_tp_runner(mod: IRModule, view: str = "local"):
    """The reference: the simulated workers (``local``) or the global tensors (``global``)."""
    import io

    import relax_ref
    from relax_ref.interp.workers import evaluate_local

    if view == "global":
        return lambda args: relax_ref.evaluate(mod, "forward", *args)
    return lambda args: evaluate_local(mod, "forward", *args, stdout=io.StringIO())


def jax_tp_runner(mod: IRModule):
    """relax_jax's local view: the workers as lanes partitioned over the mesh's devices (simulated
    workers when the process has fewer devices)."""
    from relax_jax.local_view import LocalView

    view = LocalView(mod, "forward")

    def run(args):
        return view(*args)

    run.view = view
    return run


__all__ = ["build_tp_module", "tp_weights", "tp_inputs", "generate_tp", "ref_tp_runner", "jax_tp_runner"]
