import os
import re

import gbt

from conftest import ROOT


def test_version_is_the_library_and_configure_ac_version():
    with open(os.path.join(ROOT, "configure.ac")) as f:
        expected = re.search(r"AC_INIT\(\[gbt\],\s*\[([^\]]+)\]", f.read()).group(1)
    assert gbt.__version__ == expected


def test_build_info():
    info = gbt.build_info()
    assert info["version"] == gbt.__version__
    assert isinstance(info["openmp"], bool)
    assert set(info["cuda"]) >= {"compiled", "version", "archs"}
    assert os.path.exists(info["library"])
    assert info["devices"] == gbt.device_count() >= 0


def test_params_info_lists_the_library_table():
    params = {p["name"]: p for p in gbt.params_info()}
    assert params["eta"]["aliases"] == "learning_rate"
    assert params["max_depth"]["default"] == "6"
    assert "objective" in params and "device" in params
