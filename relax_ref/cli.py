"""``relax-ref``: command-line entry point.

    relax-ref check FILE                 parse + normalize + well-formedness; "OK" or the error (exit 1)
    relax-ref print FILE [--dialect D]   print the module as TVMScript (classic, tvm-0.25, tvm-0.27, tvm)
    relax-ref run FILE [--entry main] --inputs in.npz [--out out.npz]
    relax-ref ops [--json]               the operator status table
    relax-ref viz FILE [--entry main] [-o out.svg|png|dot]   a picture of a Relax function

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
    data = render(mod, args.entry, fmt)
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

    v = sub.add_parser("viz", help="draw the dataflow graph of a Relax function (needs graphviz)")
    v.add_argument("file")
    v.add_argument("--entry", default="main")
    v.add_argument("-o", "--output", default=None, help="output file (.svg, .png or .dot); default SVG on stdout")
    v.add_argument("--format", choices=["svg", "png", "dot"], default=None, help="override the format")
    v.set_defaults(fn=_cmd_viz)

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
