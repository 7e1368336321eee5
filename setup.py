"""A build step for setuptools: the software identity manifest (``threecard identify``).

Every setting of the package is in pyproject.toml. This file only adds one step to
``build_py``: after the packages are copied into the build folder, it writes
``controller/MANIFEST.sha256`` there (the SHA-256 of every file the wheel installs), with
the code ``threecard identify`` checks it with (``controller/identity.py``, loaded by its
path). An editable install serves the source tree, which changes: it gets no manifest.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

from setuptools import setup
from setuptools.command.build_py import build_py


def _identity() -> ModuleType:
    path = Path(__file__).resolve().parent / "controller" / "identity.py"
    spec = importlib.util.spec_from_file_location("_threecard_identity", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


class BuildPyWithManifest(build_py):
    """``build_py``, then the manifest of what it built."""

    def run(self) -> None:
        """Copy the packages (none left from an earlier build), then write the manifest."""
        if not getattr(self, "editable_mode", False):  # a module since moved stays otherwise
            for name in {name.split(".")[0] for name in self.packages or ()}:
                shutil.rmtree(Path(self.build_lib) / name, ignore_errors=True)
        super().run()
        if getattr(self, "editable_mode", False):
            return
        identity = _identity()
        top = sorted({name.split(".")[0] for name in self.packages or ()})
        self._manifest = str(identity.write_manifest(Path(self.build_lib), top))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        """What ``build_py`` wrote, the manifest included."""
        outputs = list(super().get_outputs(include_bytecode))
        manifest = getattr(self, "_manifest", None)
        return outputs + [manifest] if manifest else outputs


setup(cmdclass={"build_py": BuildPyWithManifest})
