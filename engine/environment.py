"""Facts about the machine that both front ends need, with no heavy imports."""

from __future__ import annotations

import os
import sys


def no_display() -> bool:
    """True on Linux/BSD when no display server is named and no Qt platform is chosen:
    a window cannot open (Qt would abort), while the ``arl`` commands work."""
    return (
        sys.platform.startswith(("linux", "freebsd", "openbsd"))
        and not os.environ.get("DISPLAY")
        and not os.environ.get("WAYLAND_DISPLAY")
        and not os.environ.get("QT_QPA_PLATFORM")
    )
