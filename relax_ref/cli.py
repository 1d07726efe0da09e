"""``relax-ref``: command-line entry point.

    relax-ref check FILE                 parse + normalize + well-formedness; "OK" or the error (exit 1)
    relax-ref print FILE [--dialect D]   print the module as TVMScript (classic, tvm-0.25, tvm-0.27, tvm)
    relax-ref run FILE [--entry main] --inputs in.npz [--out out.npz]
    relax-ref ops [--json]               the operator status table
    relax-ref viz FILE [--function main] [--collapse | --depth N] [--compact] [-o out.svg|png|dot]
                                         a picture of a Relax function
    relax-ref export FILE [--entry main] -o main.stablehlo   StableHLO with symbolic dimensions

Every error -- bad text, a bad program, a missing or malformed file, bad inputs -- is a message on
stderr (one line, followed for a program error by the source line and a caret) and exit status 1;
a command-line usage error is exit status 2. Never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from ._version import __version__
from .errors import RelaxError
from .npz import DEFAULT_MAX_BYTES
from .script.dialect import dialect_names


def _read(path: str) -> str:
    from .files import read_source

    return read_source(path)


def _cmd_check(args) -> int:
    from . import parse

    mod = parse(_read(args.file), file=args.file)
    names = ", ".join(mod)
    print(f"OK: {args.file}: {len(mod)} function(s): {names}")
    return 0


def _cmd_print(args) -> int:
    from . import parse

    mod = parse(_read(args.file), file=args.file)
    sys.stdout.write(mod.script(dialect=args.dialect))
    sys.stdout.write("\n")
    return 0


def _cmd_run(args) -> int:
    from .interp import cli_run

    print(cli_run(args.file, args.entry, args.inputs, args.out, max_bytes=args.max_input_bytes))
    return 0


def _cmd_ops(args) -> int:
    from .status import status_rows, render_table

    rows = status_rows()
    if args.json:
        import json

        for r in rows:
            print(json.dumps(r, sort_keys=False))
    else:
        print(render_table(rows))
    return 0


def _cmd_viz(args) -> int:
    from . import parse
    from .viz import format_for_path, render

    mod = parse(_read(args.file), file=args.file)
    fmt = args.format or format_for_path(args.output)
    data = render(mod, args.entry, fmt, depth=args.depth, collapse=args.collapse, compact=args.compact)
    if args.output in (None, "-"):
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return 0
    try:
        with open(args.output, "wb") as f:
            f.write(data)
    except OSError as e:
        print(f"relax-ref: cannot write {args.output}: {e.strerror or e}", file=sys.stderr)
        return 1
    print(f"wrote {args.output}")
    return 0


def _byte_count(text: str) -> int:
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = t[-1:] if t[-1:] in units else ""
    try:
        n = int(t[: len(t) - len(unit)]) * units[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a byte count: {text!r}") from None
    if n <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return n


def _cmd_export(args) -> int:
    from . import parse

    try:
        from relax_jax import compile as jax_compile
        from relax_jax.export import cli_export
    except ImportError as e:  # pragma: no cover - jax is a dependency
        print(f"relax-ref export needs the JAX executor: {e}", file=sys.stderr)
        return 1
    mod = parse(_read(args.file), file=args.file)
    try:
        print(cli_export(jax_compile(mod), args.entry, args.output, constraints=args.constraint, checks=args.checks))
    except OSError as e:
        print(f"relax-ref: cannot write {e.filename or args.output}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="relax-ref", description="The executable reference for Relax.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)

    c = sub.add_parser("check", help="parse, normalize and check well-formedness")
    c.add_argument("file")
    c.set_defaults(fn=_cmd_check)

    pr = sub.add_parser("print", help="print a module as TVMScript")
    pr.add_argument("file")
    pr.add_argument("--dialect", choices=dialect_names(), default="classic",
                    help="the TVMScript dialect (TEXT.DIALECT.1; 'tvm' is the newest release's)")
    pr.set_defaults(fn=_cmd_print)

    r = sub.add_parser("run", help="run a function on the reference interpreter")
    r.add_argument("file")
    r.add_argument("--entry", default="main")
    r.add_argument("--inputs", required=False, default=None, help="npz with arg0, arg1, ... (or parameter names)")
    r.add_argument("--out", default=None, help="write outputs to this npz")
    r.add_argument("--max-input-bytes", type=_byte_count, default=DEFAULT_MAX_BYTES, metavar="N",
                   help="refuse an inputs file whose arrays expand to more than N bytes "
                        "(suffixes K, M, G; default 1G)")
    r.set_defaults(fn=_cmd_run)

    o = sub.add_parser("ops", help="operator status table")
    o.add_argument("--json", action="store_true", help="one JSON object per operator")
    o.set_defaults(fn=_cmd_ops)

    v = sub.add_parser(
        "viz", help="draw the dataflow graph of a Relax function (needs graphviz)",
        description="Draw the dataflow graph of a Relax function: parameters, bindings and the return value, "
                    "edges labelled with struct info; dataflow blocks, fused groups and If branches as boxes.")
    v.add_argument("file")
    v.add_argument("--function", "--entry", dest="entry", default="main", metavar="NAME",
                   help="the Relax function to draw (default main)")
    v.add_argument("--collapse", action="store_true",
                   help="draw every call of a fused or other Relax function of the module as one node that names "
                        "what it computes (the same as --depth 0)")
    v.add_argument("--depth", type=int, default=None, metavar="N",
                   help="draw calls of the module's Relax functions inside their callers up to N levels deep, "
                        "deeper ones as one node (default: fused groups inside, up to 4 levels; other calls as one "
                        "node)")
    v.add_argument("--compact", action="store_true",
                   help="weights (the parameters after the function's num_input attribute) inside their users' "
                        "labels, no edge labels, tighter spacing: a model layer reads as one column")
    v.add_argument("-o", "--output", default=None, help="output file (.svg, .png or .dot); default SVG on stdout")
    v.add_argument("--format", choices=["svg", "png", "dot"], default=None, help="override the format")
    v.set_defaults(fn=_cmd_viz)

    x = sub.add_parser(
        "export", help="export a function to StableHLO with symbolic dimensions (jax.export)",
        description="Export a Relax function through the JAX executor with jax.export: the signature's "
                    "symbolic variables become dimension variables, so the artifact runs at every size. "
                    "Writes OUT (StableHLO, MLIR text), OUT.mlirbc (StableHLO portable bytecode) and "
                    "OUT.jax (jax.export.deserialize reads it back).")
    x.add_argument("file")
    x.add_argument("--entry", default="main", help="the Relax function to export (default main)")
    x.add_argument("-o", "--output", required=True, metavar="OUT", help="the StableHLO text file, e.g. main.stablehlo")
    x.add_argument("--constraint", action="append", default=[], metavar="C",
                   help='a constraint on the dimension variables in jax.export\'s syntax, e.g. "n <= 4096" '
                        "(repeatable)")
    x.add_argument("--checks", choices=["raise", "off"], default="raise",
                   help="run-time checks on data (index bounds, division by zero, asserts) cannot raise in "
                        "an exported function: 'raise' refuses to export a function that has them, 'off' drops "
                        "them (default raise)")
    x.set_defaults(fn=_cmd_export)

    return p


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except RelaxError as e:
        print(str(e), file=sys.stderr)
        return 1
    except RecursionError:
        print("relax-ref: the input is nested too deeply to process", file=sys.stderr)
        return 1
    except MemoryError:
        print("relax-ref: out of memory", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("relax-ref: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as e:  # noqa: BLE001 - a bug in relax-ref: still one line, never a traceback
        where = ""
        tb = e.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        if tb is not None:
            where = f" at {tb.tb_frame.f_code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno}"
        print(f"relax-ref: internal error (a bug in relax-ref, please report it): {type(e).__name__}: {e}{where}",
              file=sys.stderr)
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
