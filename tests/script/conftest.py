"""The parser tests share ``script_helpers`` (importable from the test modules by name)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
