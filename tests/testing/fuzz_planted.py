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


def hang(mod, entry, args):
    time.sleep(120)
