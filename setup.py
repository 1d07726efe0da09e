"""Build hook: the wheel carries the data that lies outside the Python packages in the repository
(conformance cases, spec pages, divergences, TVM agreement) as package data of ``relax_ref``, at
the places ``relax_ref.resources.DATA`` names. Everything else is declared in pyproject.toml."""

import importlib.util
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def _resources():
    spec = importlib.util.spec_from_file_location("_relax_ref_resources", HERE / "relax_ref" / "resources.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildPyWithData(build_py):
    """``build_py`` that also copies the repository data into ``relax_ref/_data`` of the build."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the data in the checkout
        res = _resources()
        target = Path(self.build_lib) / "relax_ref" / res.PACKAGE_DIR
        for name, rel in res.DATA.items():
            src, dst = HERE / rel, target / name
            if not src.exists():
                raise FileNotFoundError(f"package data {name!r}: {rel} is missing from the source tree")
            if dst.exists():
                shutil.rmtree(dst) if dst.is_dir() else dst.unlink()
            dst.parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir():
                skip = {src / part for part in res.EXCLUDE.get(name, ())}
                common = shutil.ignore_patterns("__pycache__", "*.pyc", ".gitignore")

                def ignore(folder, names, skip=skip, common=common):
                    return set(common(folder, names)) | {n for n in names if Path(folder) / n in skip}

                shutil.copytree(src, dst, ignore=ignore)
            else:
                shutil.copy2(src, dst)


setup(cmdclass={"build_py": BuildPyWithData})
