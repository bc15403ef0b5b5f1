"""The package list for setuptools: the top-level folders install as subpackages of rulecheck.

pyproject.toml maps each folder to its package name ([tool.setuptools.package-dir]); a mapping
names packages, not their subpackages, so every subpackage below a mapped folder is found here
and a new one needs no entry anywhere.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from setuptools import find_packages, setup

ROOT = Path(__file__).resolve().parent
MAPPING: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]

packages = []
for name, folder in MAPPING.items():
    packages.append(name)
    packages += [f"{name}.{sub}" for sub in find_packages(where=folder)]

setup(packages=sorted(packages))
