"""Evaluators with planted bugs, for the fuzzer's own tests (imported by its worker processes)."""

import os
import time

import numpy as np

import relax_ref


def crash_on_add(mod, entry, args):
    """The reference, except that a module with ``R.add`` raises a TypeError (a non-RelaxError)."""
    if "R.add(" in mod.script():
        raise TypeError("planted: add is broken")
    return relax_ref.evaluate(mod, entry, *args)


def off_by_one(mod, entry, args):
    """The reference's result plus one: a value disagreement on every float result."""
    r = relax_ref.evaluate(mod, entry, *args)
    return r + np.float32(1) if isinstance(r, np.ndarray) and r.dtype.kind == "f" else r


def abort(mod, entry, args):
    os.abort()


def abort_once(mod, entry, args):
    """The reference, after an abort the first time in a run (the file FUZZ_PLANTED_ABORT_MARK marks
    it): a worker that died of its own state, not of the program."""
    mark = os.environ.get("FUZZ_PLANTED_ABORT_MARK")
    if mark and not os.path.exists(mark):
        open(mark, "w").close()
        os.abort()
    return relax_ref.evaluate(mod, entry, *args)


def hang(mod, entry, args):
    time.sleep(120)


def slow_once(mod, entry, args):
    """The reference, after 6 s the first time in a process (a machine under load): slow, not a hang."""
    global _SLEPT
    if not globals().get("_SLEPT") and os.environ.get("FUZZ_PLANTED_SLOW_MARK"):
        mark = os.environ["FUZZ_PLANTED_SLOW_MARK"]
        if not os.path.exists(mark):
            open(mark, "w").close()
            time.sleep(6)
    _SLEPT = True
    return relax_ref.evaluate(mod, entry, *args)


def flushing(mod, entry, args):
    """The reference with subnormals flushed to zero, as XLA computes on the CPU (PRIM.FLOAT.6)."""
    from relax_ref.testing.ftz import flush_denormals

    with flush_denormals():
        return relax_ref.evaluate(mod, entry, *args)


def flushing_off_by_one(mod, entry, args):
    """flushing, and a float result off by one: a difference that flushing does not explain."""
    r = flushing(mod, entry, args)
    return r + np.float32(1) if isinstance(r, np.ndarray) and r.dtype.kind == "f" else r
