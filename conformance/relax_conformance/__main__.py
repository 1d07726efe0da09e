"""``python -m relax_conformance`` is ``relax-conformance``."""

import sys

from .cli import main

sys.exit(main())
