"""Does sympy earn a place in relax-ref? relax-ref's analyzer against ``sympy.simplify`` as a prover of
shape identities (the measurement behind the decision recorded in docs/ARCHITECTURE.md, Dependencies).

    python benchmarks/arith_vs_sympy.py [--n 300] [--seed 0]      # needs sympy installed by hand

Each example is a random index expression over ``n, m, k`` (non-negative, int64) with ``+ - *`` and
floor division/modulo by constants, and a copy of it rewritten by one to three rules that keep its
value (commuting operands, distributing a product, ``x -> x*c // c``, ``x -> (x//c)*c + x%c``,
``x -> x + y - y``). Every pair is a true identity; the script counts which prover proves it and the
mean time per query.
"""

from __future__ import annotations

import argparse
import random
import time

from relax_ref.arith import Analyzer
from relax_ref.ir import prim_expr as P

VARS = [P.PrimVar(n, "int64") for n in ("n", "m", "k")]


def rand_expr(r: random.Random, depth: int) -> P.PrimExpr:
    if depth == 0 or r.random() < 0.25:
        return r.choice(VARS) if r.random() < 0.7 else P.const(r.randint(1, 8), "int64")
    op = r.choice(["add", "sub", "mul", "fdiv", "fmod", "add", "mul"])
    a = rand_expr(r, depth - 1)
    if op in ("fdiv", "fmod"):
        c = P.const(r.randint(1, 8), "int64")
        return P.floordiv(a, c) if op == "fdiv" else P.floormod(a, c)
    b = P.const(r.randint(1, 8), "int64") if op == "mul" and r.random() < 0.5 else rand_expr(r, depth - 1)
    return {"add": P.add, "sub": P.sub, "mul": P.mul}[op](a, b)


def rewrite(r: random.Random, e: P.PrimExpr) -> P.PrimExpr:
    """An expression of the same value: one rule at the root, or a rewrite of one operand."""
    kind = r.randrange(6)
    if kind == 0 and type(e) in (P.Add, P.Mul):
        return type(e)(e.b, e.a)
    if kind == 1 and type(e) is P.Mul and isinstance(e.b, P.Add):
        return P.add(P.mul(e.a, e.b.a), P.mul(e.a, e.b.b))
    if kind in (2, 3):
        c = P.const(r.randint(2, 6), "int64")
        if kind == 2:
            return P.floordiv(P.mul(e, c), c)
        return P.add(P.mul(P.floordiv(e, c), c), P.floormod(e, c))
    if kind == 4:
        y = r.choice(VARS)
        return P.sub(P.add(e, y), y)
    if isinstance(e, P.BinaryOp):
        if r.random() < 0.5:
            return type(e)(rewrite(r, e.a), e.b)
        return type(e)(e.a, rewrite(r, e.b))
    return e


def to_sympy(e: P.PrimExpr, sympy, symbols):
    t = type(e)
    if t is P.PrimVar:
        return symbols[e]
    if t is P.IntImm:
        return sympy.Integer(e.value)
    a, b = to_sympy(e.a, sympy, symbols), to_sympy(e.b, sympy, symbols)
    ops = {P.Add: lambda: a + b, P.Sub: lambda: a - b, P.Mul: lambda: a * b,
           P.FloorDiv: lambda: sympy.floor(a / b), P.FloorMod: lambda: sympy.Mod(a, b)}
    return ops[t]()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    import sympy
    t_import = time.perf_counter() - t0
    symbols = {v: sympy.Symbol(v.name, integer=True, nonnegative=True) for v in VARS}
    r = random.Random(a.seed)
    counts = {"both": 0, "relax_ref only": 0, "sympy only": 0, "neither": 0}
    t_ours = t_sym = 0.0
    for _ in range(a.n):
        e1 = rand_expr(r, 3)
        e2 = e1
        for _ in range(r.randint(1, 3)):
            e2 = rewrite(r, e2)
        t0 = time.perf_counter()
        ours = Analyzer().can_prove_equal(e1, e2)
        t_ours += time.perf_counter() - t0
        t0 = time.perf_counter()
        theirs = sympy.simplify(to_sympy(e1, sympy, symbols) - to_sympy(e2, sympy, symbols)) == 0
        t_sym += time.perf_counter() - t0
        key = "both" if ours and theirs else "relax_ref only" if ours else "sympy only" if theirs else "neither"
        counts[key] += 1
    print(f"sympy {sympy.__version__}, import {t_import:.2f} s; {a.n} true identities, seed {a.seed}")
    print(", ".join(f"{k}: {v}" for k, v in counts.items()))
    print(f"mean time per query: relax_ref {1e3 * t_ours / a.n:.2f} ms, sympy.simplify {1e3 * t_sym / a.n:.2f} ms")


if __name__ == "__main__":
    main()
