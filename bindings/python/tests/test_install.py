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


def _import_with(env_value):
    import subprocess
    import sys
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(gbt.__file__)))
    env = dict(os.environ, GBT_LIBRARY_PATH=env_value,
               PYTHONPATH=os.pathsep.join(filter(None, [pkg, os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-c", "import gbt; print(gbt.build_info()['library'])"],
                          capture_output=True, text=True, env=env)


def test_gbt_library_path_takes_a_file_or_a_directory(tmp_path):
    lib = gbt.build_info()["library"]
    r = _import_with(lib)
    assert r.returncode == 0 and r.stdout.strip() == lib
    link = tmp_path / "libgbt.so"
    link.symlink_to(lib)
    r = _import_with(str(tmp_path))
    assert r.returncode == 0 and r.stdout.strip() == str(link)
    r = _import_with(str(tmp_path / "nowhere"))
    assert r.returncode != 0 and "GBT_LIBRARY_PATH" in r.stderr and "nowhere" in r.stderr
