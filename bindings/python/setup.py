"""Builds libgbt from this repository and bundles it in the package.

`pip install ./bindings/python` runs build-libgbt.sh (autoreconf, configure
out of tree in build/libgbt, make libgbt.la) and copies the shared library
to gbt/lib/libgbt.so in the wheel.  With GBT_LIBRARY_PATH set at install
time nothing is built and the package loads that library at run time.
GBT_BUILD_CUDA=0|1|auto chooses the backend (see build-libgbt.sh).
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def version() -> str:
    conf = os.path.join(ROOT, "configure.ac")
    if not os.path.exists(conf):
        raise RuntimeError(
            f"gbt: {conf} is not there: the package builds libgbt from the gbt repository it sits "
            "in (bindings/python), so install it from a checkout with `pip install ./bindings/python` "
            "(pip 21.3 or newer builds in place; older ones copy the directory away first)")
    with open(conf) as f:
        m = re.search(r"AC_INIT\(\[gbt\],\s*\[([^\]]+)\]", f.read())
    if not m:
        raise RuntimeError("cannot find the version in configure.ac")
    return m.group(1)


class BuildWithLibgbt(build_py):
    def run(self) -> None:
        super().run()
        if os.environ.get("GBT_LIBRARY_PATH"):
            print("gbt: GBT_LIBRARY_PATH is set: not building libgbt; the package will load "
                  + os.environ["GBT_LIBRARY_PATH"], file=sys.stderr)
            return
        build_dir = os.environ.get("GBT_BUILD_DIR", os.path.join(HERE, "build", "libgbt"))
        script = os.path.join(HERE, "build-libgbt.sh")
        out = subprocess.run(["sh", script, build_dir], check=True, stdout=subprocess.PIPE,
                             text=True).stdout.strip().splitlines()
        lib = out[-1]
        dest = os.path.join(self.build_lib, "gbt", "lib")
        os.makedirs(dest, exist_ok=True)
        shutil.copyfile(lib, os.path.join(dest, "libgbt.so"))
        print(f"gbt: bundled {lib} as gbt/lib/libgbt.so", file=sys.stderr)


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: it is specific to the platform."""

    def has_ext_modules(self) -> bool:
        return True


setup(version=version(), cmdclass={"build_py": BuildWithLibgbt}, distclass=BinaryDistribution)
