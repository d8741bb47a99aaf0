"""The desktop program (PySide6): it renders what the engine produced.

PySide6 6.12 drops one reference to None on every call of a Qt method that returns nothing
(``processEvents``, ``setObjectName``, ``runJavaScript``...; measured: 1,000 calls, None's
count 1,000 lower). On Python before 3.12, where None is not immortal, a session of some
27,000 such calls ended in "Fatal Python error: none_dealloc" (the viewer benchmark's
scroll loop did). None is given 2**40 references here, once, before any Qt call: a
trillion calls before the count could run out (tests/app/test_app_viewer_lazy.py).
"""

import ctypes
import sys

if sys.version_info < (3, 12):  # from 3.12 on None is immortal
    # ob_refcnt is the first field of every object (CPython's PyObject); under the GIL.
    ctypes.c_ssize_t.from_address(id(None)).value += 1 << 40
