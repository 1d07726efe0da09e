"""relax_conformance: the Relax conformance suite's runner, adapters and case-generator library.

* case format v1: :mod:`relax_conformance.case` (reading), :mod:`relax_conformance.gen` (writing);
* the adapter protocol: :mod:`relax_conformance.adapter`; adapters in :mod:`relax_conformance.adapters`;
* the subprocess protocol: :mod:`relax_conformance.protocol`, :mod:`relax_conformance.worker`;
* the runner and reports: :mod:`relax_conformance.runner`, :mod:`relax_conformance.report`,
  :mod:`relax_conformance.cli`.

The documentation of the format and protocols is ``conformance/FORMAT.md``.
"""

from .adapter import Adapter, AdapterError, LoadError, RunError, Unsupported
from .case import CaseFormatError, CaseSpec, RunSpec, discover_cases, load_case
from .gen import Case, Fails, Invalid, Malformed, Run, write_cases
from .runner import CaseResult, judge_case, run_cases, select_cases
from .values import Prim, Shape

from relax_ref._version import __version__

__all__ = [
    "__version__",
    "Adapter", "AdapterError", "LoadError", "RunError", "Unsupported",
    "CaseFormatError", "CaseSpec", "RunSpec", "discover_cases", "load_case",
    "Case", "Fails", "Invalid", "Malformed", "Run", "write_cases",
    "CaseResult", "judge_case", "run_cases", "select_cases",
    "Prim", "Shape",
]
