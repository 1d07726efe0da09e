"""A tiny Llama-style decoder built with relax-ref's builder and module library, run by greedy decoding.

The model: token embedding, ``layers`` decoder layers (RMSNorm -> grouped-query attention with rotary
embedding and a KV cache -> residual -> RMSNorm -> SiLU-gated MLP -> residual), a final RMSNorm and an
LM head; seeded random weights. Two Relax functions with symbolic shapes:

* ``prefill(tokens: (1, n) int32, *weights) -> (logits (1, vocab), k_0, v_0, k_1, v_1, ...)`` with caches
  ``(1, n, kv_heads, head_dim)``;
* ``decode(token: (1, 1) int32, k_0, v_0, ...: (1, m, kv_heads, head_dim), *weights)
  -> (logits, k_0', v_0', ...)`` with caches ``(1, m + 1, ...)``.

With ``--style kv_cache`` (:func:`build_kv_module`) the caches are KV-cache objects as TVM's
``relax.frontend.nn`` keeps them (``vm.builtin.attention_kv_cache_*``, appended in place):
``create_caches()``, ``prefill(tokens, *caches, *weights)``, ``decode(token, R.Shape([m]), *caches,
*weights)``; the same token ids.

Usage::

    python examples/llama_tiny.py --impl ref,jax --tokens 8   # both token sequences + whether equal
    python examples/llama_tiny.py --print                     # the module as TVMScript (TVM spelling)
    python examples/llama_tiny.py --impl ref,tvm              # TVM 0.25: relax.build(target="llvm") + VM
    python examples/llama_tiny.py --impl ref,jax,tvm --style kv_cache
    python examples/llama_tiny.py --impl ref,jax --mesh 2      # + tensor parallel on 2 workers
    python examples/llama_tiny.py --impl ref,jax --dtype bfloat16 --style kv_cache

With ``--dtype bfloat16`` (``Config(dtype=...)``, both styles) the weights, activations and caches are
bfloat16 (the rotary table is computed in float32 and rounded); ``ref`` and ``jax`` agree bit for bit.

With ``--mesh N`` (2, 4, ...) each implementation also runs the tensor-parallel form of the model
(``llama_tp.py``: attention heads and MLP columns sharded over a mesh of ``N`` workers, one allreduce
per attention and per MLP block, as Megatron-LM does) in the local view: ``ref`` on its simulated
workers, ``jax`` on ``N`` devices (the workers as ``vmap`` lanes partitioned over them; the script asks XLA for ``N`` host CPU
devices when JAX is not started yet). The token ids must be the single-device ones.

Implementations: ``ref`` (the reference interpreter), ``jax`` (``relax_jax.compile``), ``tvm`` (needs the
``apache-tvm`` extra). With several implementations the exit status is 1 when their token ids differ.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from relax_ref import IRModule
from relax_ref.builder import BlockBuilder, Object, Shape, Tensor, op, var
from relax_ref.frontend import nn
from relax_ref.frontend.nn import emit
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir.struct_info import TensorStructInfo
from relax_ref.script.dialect import installed_tvm_dialect

IMPLS = ("ref", "jax", "tvm")


@dataclass(frozen=True)
class Config:
    vocab_size: int = 256
    hidden_size: int = 128
    num_layers: int = 2
    num_heads: int = 4
    num_kv_heads: int = 2
    intermediate_size: int = 256
    rope_theta: float = 10000.0
    rms_eps: float = 1e-5
    dtype: str = "float32"          # weights, activations and caches: "float32" or "bfloat16"

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_heads


class DecoderLayer(nn.Module):
    def __init__(self, cfg: Config) -> None:
        dt = cfg.dtype
        self.input_norm = nn.RMSNorm(cfg.hidden_size, cfg.rms_eps, dtype=dt)
        self.attn = nn.Attention(cfg.hidden_size, cfg.num_heads, cfg.num_kv_heads, rope_theta=cfg.rope_theta,
                                 dtype=dt)
        self.post_norm = nn.RMSNorm(cfg.hidden_size, cfg.rms_eps, dtype=dt)
        self.mlp = nn.GatedMLP(cfg.hidden_size, cfg.intermediate_size, dtype=dt)

    def forward(self, h, cache):
        a, k, v = self.attn.forward(self.input_norm.forward(h), cache)
        h = emit(op.add(h, a))
        h = emit(op.add(h, self.mlp.forward(self.post_norm.forward(h))))
        return h, k, v


class LlamaTiny(nn.Module):
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.hidden_size, dtype=cfg.dtype)
        self.layers = [DecoderLayer(cfg) for _ in range(cfg.num_layers)]
        self.norm = nn.RMSNorm(cfg.hidden_size, cfg.rms_eps, dtype=cfg.dtype)
        self.lm_head = nn.Linear(cfg.hidden_size, cfg.vocab_size, dtype=cfg.dtype)

    def forward(self, tokens, caches: Optional[Sequence] = None, total: Optional[P.PrimExpr] = None):
        """Logits of the last position ``(batch, vocab)`` and the extended caches ``[k_0, v_0, ...]``
        (with ``total``, the total length once ``tokens`` are in: ``caches`` are KV-cache objects)."""
        b, n = tokens.struct_info.shape_values
        h = self.embed.forward(tokens)
        new_caches = []
        for i, layer in enumerate(self.layers):
            cache = None if caches is None else (caches[2 * i], caches[2 * i + 1])
            if total is not None:
                cache = nn.CacheObjects(caches[2 * i], caches[2 * i + 1], total)
            h, k, v = layer.forward(h, cache)
            new_caches += [k, v]
        if not (isinstance(n, P.IntImm) and n.value == 1):  # keep the last position only
            h = emit(op.strided_slice(h, axes=[1], begin=[n - 1], end=[n], assume_inbound=True))
        logits = self.lm_head.forward(self.norm.forward(h))
        logits = emit(op.reshape(logits, [b, self.cfg.vocab_size]))
        return [logits, *new_caches]


def decode_donation(mod: IRModule) -> dict:
    """``relax_jax.compile``'s ``donate_argnums`` for a caller that passes each cache to one ``decode``
    call and uses only the grown caches it returns (as :func:`generate` does): the tensor caches of
    :func:`build_module`'s ``decode`` are donated, so their padded buffers are grown in place. Empty
    for :func:`build_kv_module` (its caches are objects the executor keeps in place anyway)."""
    if "decode" not in mod:
        return {}
    idx = tuple(k for k, p in enumerate(mod["decode"].params)
                if "_cache_" in p.name_hint and isinstance(p.struct_info, TensorStructInfo))
    return {"decode": idx} if idx else {}


def padded_results(mod: IRModule) -> Tuple[str, ...]:
    """``relax_jax.compile``'s ``padded_results`` for a caller that only reads the logits (through NumPy)
    and passes the caches back: the caches that ``prefill`` and ``decode`` return are handles of their
    padded buffers (``relax_jax.PaddedArray``), passed back without being cut to their rows first."""
    return tuple(f for f in ("prefill", "decode") if f in mod)


def build_module(model: LlamaTiny) -> IRModule:
    """``prefill`` and ``decode`` (see the module docstring), normalized and well-formed."""
    cfg = model.cfg
    bb = BlockBuilder()
    n = bb.sym_var("n")
    tokens = var("tokens", Tensor((1, n), "int32"))
    nn.build_function(bb, "prefill", [tokens], model, lambda t: model.forward(t))

    m = bb.sym_var("m")
    token = var("token", Tensor((1, 1), "int32"))
    caches = [var(f"{kind}_cache_{i}", Tensor((1, m, cfg.num_kv_heads, cfg.head_dim), cfg.dtype))
              for i in range(cfg.num_layers) for kind in ("k", "v")]
    nn.build_function(bb, "decode", [token, *caches], model, lambda t, *c: model.forward(t, c))
    return bb.get()


def build_kv_module(model: LlamaTiny, reserve: int = 128) -> IRModule:
    """The same model with KV-cache objects as TVM's nn frontend keeps them (CALL.KVCACHE.*):

    * ``create_caches() -> (k_0, v_0, ...)``: empty caches (``R.Object``) of ``reserve`` rows;
    * ``prefill(tokens (1, n), k_0, v_0, ..., *weights) -> (logits, k_0, v_0, ...)`` on empty caches;
    * ``decode(token (1, 1), total: R.Shape([m]), k_0, v_0, ..., *weights) -> (logits, k_0, ...)``
      where ``m`` is the length once the token is in.

    The caches returned are the argument objects, mutated (appended in place)."""
    cfg = model.cfg
    bb = BlockBuilder()
    unit = [cfg.num_kv_heads, cfg.head_dim]
    with bb.function("create_caches", []):
        objs = [nn.KVCache(reserve, unit, cfg.dtype).create(f"{kind}_cache_{i}")
                for i in range(cfg.num_layers) for kind in ("k", "v")]
        bb.emit_func_output(rx.Tuple(tuple(objs)))

    def objects():
        return [var(f"{kind}_cache_{i}", Object()) for i in range(cfg.num_layers) for kind in ("k", "v")]

    n = bb.sym_var("n")
    tokens = var("tokens", Tensor((1, n), "int32"))
    nn.build_function(bb, "prefill", [tokens, *objects()], model, lambda t, *c: model.forward(t, c, n))
    m = bb.sym_var("m")
    token = var("token", Tensor((1, 1), "int32"))
    total = var("total", Shape([m]))
    nn.build_function(bb, "decode", [token, total, *objects()], model, lambda t, s, *c: model.forward(t, c, m))
    return bb.get()


# ---------------------------------------------------------------------------------------------------
# Runners: each returns a function (entry, args) -> (logits numpy array, opaque caches)
# ---------------------------------------------------------------------------------------------------

Runner = Callable[[str, list], Tuple[np.ndarray, list]]


def ref_runner(mod: IRModule) -> Runner:
    import relax_ref

    def run(entry: str, args: list):
        return _split(entry, relax_ref.evaluate(mod, entry, *args))

    return run


def jax_runner(mod: IRModule) -> Runner:
    import relax_jax

    exe = relax_jax.compile(mod, donate_argnums=decode_donation(mod), padded_results=padded_results(mod))

    def run(entry: str, args: list):
        return _split(entry, exe(entry, *args))

    return run


def tvm_runner(mod: IRModule) -> Runner:
    import tvm
    from tvm import relax

    tmod = tvm.script.from_source(mod.script(dialect=installed_tvm_dialect()))
    exe = relax.build(tmod, target="llvm")
    vm = relax.VirtualMachine(exe, tvm.cpu())

    def conv(a):
        if isinstance(a, tuple):
            return tvm.runtime.ShapeTuple(a)
        return tvm.runtime.tensor(np.ascontiguousarray(a)) if isinstance(a, np.ndarray) else a

    def run(entry: str, args: list):
        out = vm[entry](*[conv(a) for a in args])
        if entry == "create_caches":
            return None, list(out)
        return out[0].numpy(), list(out[1:])

    return run


def _split(entry: str, out) -> Tuple[Optional[np.ndarray], list]:
    if entry == "create_caches":
        return None, list(out)
    return np.asarray(out[0]), list(out[1:])


RUNNERS: Dict[str, Callable[[IRModule], Runner]] = {"ref": ref_runner, "jax": jax_runner, "tvm": tvm_runner}


def _greedy(logits, caches, num_tokens: int, decode: Callable) -> List[int]:
    """``num_tokens`` token ids, each the most likely after the last logits; ``decode(step, token,
    caches)`` gives the next logits and caches."""
    out: List[int] = []
    for step in range(num_tokens):
        nxt = int(np.argmax(logits[0]))
        out.append(nxt)
        if step + 1 == num_tokens:
            break
        logits, caches = decode(step, nxt, caches)
    return out


def generate(run: Runner, weights: List[np.ndarray], prompt: Sequence[int], num_tokens: int) -> List[int]:
    """Greedy decoding: ``num_tokens`` new token ids after ``prompt``."""
    tokens = np.asarray([list(prompt)], dtype="int32")
    logits, caches = run("prefill", [tokens, *weights])
    return _greedy(logits, caches, num_tokens,
                   lambda step, nxt, caches: run("decode", [np.asarray([[nxt]], dtype="int32"), *caches, *weights]))


def generate_kv(run: Runner, weights: List[np.ndarray], prompt: Sequence[int], num_tokens: int) -> List[int]:
    """Greedy decoding with the KV-cache-object module (:func:`build_kv_module`)."""
    _, caches = run("create_caches", [])
    logits, caches = run("prefill", [np.asarray([list(prompt)], dtype="int32"), *caches, *weights])

    def decode(step: int, nxt: int, caches):
        total = (len(prompt) + step + 1,)
        return run("decode", [np.asarray([[nxt]], dtype="int32"), total, *caches, *weights])

    return _greedy(logits, caches, num_tokens, decode)


def make_model(seed: int, cfg: Optional[Config] = None) -> LlamaTiny:
    """The model with seeded weights (drawn in float64, rounded to ``cfg.dtype``)."""
    return LlamaTiny(cfg or Config()).init_params(seed)


def _run_tp(model: LlamaTiny, impl: str, n: int, prompt: Sequence[int], num_tokens: int) -> List[int]:
    """Greedy decoding with the tensor-parallel model on a mesh of ``n`` workers (``llama_tp.py``)."""
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
    import llama_tp

    t0 = time.perf_counter()
    mod = llama_tp.build_tp_module(model.cfg, n)
    run = llama_tp.ref_tp_runner(mod) if impl == "ref" else llama_tp.jax_tp_runner(mod)
    ids = llama_tp.generate_tp(run, model.cfg, llama_tp.tp_weights(model), prompt, num_tokens)
    where = "simulated workers" if getattr(getattr(run, "view", None), "simulated", True) else f"lanes on {n} devices"
    print(f"{impl} mesh {n}: {ids}  (local view, {where}, {time.perf_counter() - t0:.2f} s)")
    return ids


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--impl", default="ref", help="comma-separated implementations: ref, jax, tvm")
    p.add_argument("--tokens", type=int, default=8, help="number of tokens to generate")
    p.add_argument("--seed", type=int, default=0, help="weight seed")
    p.add_argument("--prompt", default="1,2,3,4,5", help="comma-separated prompt token ids")
    p.add_argument("--style", choices=("concat", "kv_cache"), default="concat",
                   help="caches grown by concat (default) or KV-cache objects as TVM's nn frontend keeps them")
    p.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32",
                   help="dtype of the weights, activations and caches")
    p.add_argument("--mesh", type=int, default=0,
                   help="also run the tensor-parallel model on a mesh of this many workers (ref, jax)")
    p.add_argument("--print", action="store_true", help="print the module as TVMScript (TVM spelling) and exit")
    args = p.parse_args(argv)

    model = make_model(args.seed, Config(dtype=args.dtype))
    kv = args.style == "kv_cache"
    mod = build_kv_module(model) if kv else build_module(model)
    if args.print:
        print(mod.script(dialect="tvm"))
        return 0
    impls = [s.strip() for s in args.impl.split(",") if s.strip()]
    unknown = [s for s in impls if s not in IMPLS]
    if unknown or not impls:
        p.error(f"unknown implementation(s) {unknown}; choose from {', '.join(IMPLS)}")
    try:
        prompt = [int(t) for t in args.prompt.split(",")]
    except ValueError:
        p.error(f"--prompt must be comma-separated integers, got {args.prompt!r}")
    if not prompt or any(not 0 <= t < model.cfg.vocab_size for t in prompt):
        p.error(f"--prompt ids must lie in [0, {model.cfg.vocab_size})")
    if args.tokens < 1:
        p.error("--tokens must be at least 1")
    if args.mesh < 0 or (args.mesh and "tvm" in impls):
        p.error("--mesh takes a positive number of workers and the implementations ref and jax")
    if args.mesh and args.dtype != "float32":
        p.error("--mesh: the tensor-parallel model is float32 only")
    if args.mesh and "jax" not in sys.modules:
        import os

        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                                   f" --xla_force_host_platform_device_count={max(args.mesh, 1)}").strip()

    weights = model.param_arrays()
    results: Dict[str, List[int]] = {}
    for impl in impls:
        t0 = time.perf_counter()
        run = RUNNERS[impl](mod)
        t1 = time.perf_counter()
        results[impl] = (generate_kv if kv else generate)(run, weights, prompt, args.tokens)
        t2 = time.perf_counter()
        print(f"{impl}: {results[impl]}  (setup {t1 - t0:.2f} s, generate {t2 - t1:.2f} s)")
        if args.mesh:
            results[f"{impl} mesh {args.mesh}"] = _run_tp(model, impl, args.mesh, prompt=prompt,
                                                          num_tokens=args.tokens)
    if len(results) > 1:
        seqs = list(results.values())
        equal = all(s == seqs[0] for s in seqs)
        print(f"equal: {equal}")
        return 0 if equal else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
