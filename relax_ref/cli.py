"""``relax-ref``: command-line entry point.

    relax-ref check FILE                 parse + normalize + well-formedness; "OK" or the error (exit 1)
    relax-ref print FILE [--dialect D]   print the module as TVMScript (classic, tvm-0.25, tvm-0.27, tvm)
    relax-ref run FILE [--entry main] --inputs in.npz [--out out.npz]
    relax-ref ops [--json]               the operator status table
    relax-ref viz FILE [--entry main] [-o out.svg|png|dot]   a picture of a Relax function
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from .errors import RelaxError
from .script.dialect import dialect_names


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise SystemExit(f"relax-ref: cannot read {path}: {e.strerror}") from None


def _cmd_check(args) -> int:
    from . import parse

    text = _read(args.file)
    try:
        mod = parse(text, file=args.file)
    except RelaxError as e:
        print(str(e), file=sys.stderr)
        return 1
    names = ", ".join(mod)
    print(f"OK: {args.file}: {len(mod)} function(s): {names}")
    return 0


def _cmd_print(args) -> int:
    from . import parse

    text = _read(args.file)
    try:
        mod = parse(text, file=args.file)
    except RelaxError as e:
        print(str(e), file=sys.stderr)
        return 1
    sys.stdout.write(mod.script(dialect=args.dialect))
    sys.stdout.write("\n")
    return 0


def _cmd_run(args) -> int:
    from .interp import cli_run

    try:
        text = cli_run(args.file, args.entry, args.inputs, args.out)
    except RelaxError as e:
        print(str(e), file=sys.stderr)
        return 1
    print(text)
    return 0


def _cmd_ops(args) -> int:
    from .ops.status import status_rows, render_table

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

    text = _read(args.file)
    try:
        mod = parse(text, file=args.file)
        fmt = args.format or format_for_path(args.output)
        data = render(mod, args.entry, fmt)
    except RelaxError as e:
        print(str(e), file=sys.stderr)
        return 1
    if args.output in (None, "-"):
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return 0
    try:
        with open(args.output, "wb") as f:
            f.write(data)
    except OSError as e:
        raise SystemExit(f"relax-ref: cannot write {args.output}: {e.strerror}") from None
    print(f"wrote {args.output}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="relax-ref", description="The executable reference for Relax.")
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
    return args.fn(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
