"""Regenerate every case category from the gen_*.py scripts in this directory.

    python conformance/generate/regen.py            # rewrite conformance/cases/<category>/
    python conformance/generate/regen.py --check    # exit 1 if the checked-in cases are not current
"""

import sys

from relax_conformance.cli import main

if __name__ == "__main__":
    sys.exit(main(["regen"] + sys.argv[1:]))
