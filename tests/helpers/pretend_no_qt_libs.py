"""A pytest plugin (``-p tests.helpers.pretend_no_qt_libs``) that makes this machine behave
as one without Qt's system libraries: the loader check reports two missing libraries and
importing any PySide6 module fails as it does there (``ImportError: libglib-2.0.so.0:
cannot open shared object file``). The tests of the suite's behaviour on a fresh machine
(``tests/conftest.py``) use it to run on any machine. Loaded before the conftest files."""

from __future__ import annotations

import sys
from importlib.abc import MetaPathFinder

from engine import system_libs


def _missing_for(platforms):
    return ["libxcb-icccm.so.4", "libnss3.so"], "sudo apt-get install libxcb-icccm4 libnss3"


class _NoQt(MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in ("PySide6", "shiboken6"):
            raise ImportError("libglib-2.0.so.0: cannot open shared object file: No such file")
        return None


system_libs.missing_for = _missing_for
for _name in [m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6")]:
    del sys.modules[_name]
sys.meta_path.insert(0, _NoQt())
