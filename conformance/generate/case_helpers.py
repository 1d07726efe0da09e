"""Helpers shared by the case generators (``gen_*.py`` in this directory import it by name): seeded
generators, ``R.Tensor`` annotations, one-call ``main`` modules and random inputs.

Nothing here computes an expected value: oracles stay in the generator scripts.
"""

import zlib

import numpy as np

from relax_conformance.gen import Malformed, module_text


def rng_for(name):
    """A generator seeded by the case family's name, so cases do not depend on each other's order."""
    return np.random.default_rng(zlib.crc32(name.encode()))


def tensor(shape, dtype="float32"):
    """The annotation ``R.Tensor(shape, dtype)``; ``shape`` is a tuple of ints and symbol names, or
    an int for ``ndim=`` only."""
    if isinstance(shape, int):
        return f'R.Tensor(ndim={shape}, dtype="{dtype}")'
    dims = ", ".join(f'"{d}"' if isinstance(d, str) else str(d) for d in shape)
    if len(shape) == 1:
        dims += ","
    return f'R.Tensor(({dims}), "{dtype}")'


def tup(*items):
    """The annotation ``R.Tuple(items)``."""
    return "R.Tuple(" + ", ".join(items) + ")"


def module_body(params, body, ret=None):
    """``main(params) -> ret`` (no return annotation for ``ret=None``) with the lines of ``body``,
    returning ``y``. ``params`` is ``[(name, annotation), ...]``."""
    plist = ", ".join(f"{n}: {a}" for n, a in params)
    arrow = f" -> {ret}" if ret is not None else ""
    lines = "\n            ".join(body.strip().split("\n"))
    return module_text(f'''
        @R.function
        def main({plist}){arrow}:
            {lines}
            return y
    ''')


def module(params, call, ret=None):
    """``main(params) -> ret`` binding ``y = call`` and returning it."""
    return module_body(params, f"y = {call}", ret)


def f32(rng, *shape):
    """Standard-normal float32 values of ``shape``."""
    return rng.standard_normal(shape).astype("float32")


def rejection_collector():
    """A list of cases and ``bad(name, text, spec, description="", tags=())``, which appends a text
    that must be rejected as malformed (tagged ``text``) to it."""
    out = []

    def bad(name, text, spec, description="", tags=()):
        out.append(Malformed(name, text, spec=spec, tags=["text"] + list(tags), description=description))

    return out, bad


#: ``main(x, s)``: a closure of ``cls.scaled`` capturing ``s``, invoked on ``x`` (the member text, indented by
#: eight spaces as the functions handed to ``module_text`` are; the module defines ``scaled(x, s)``)
SCALED_CLOSURE_MAIN = '''        @R.function
        def main(x: R.Tensor(("n",), "float32"), s: R.Tensor(("p",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            c = R.make_closure(cls.scaled, (s,))
            r = R.invoke_pure_closure(c, (x,), sinfo_args=R.Tensor((n,), "float32"))
            return r
'''


def f32_sampler(rng):
    """``f32(*shape)`` drawing from ``rng``, for generators that keep one generator for the whole file."""
    return lambda *shape: f32(rng, *shape)
