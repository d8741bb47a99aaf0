"""PyInstaller entry script: the same entry point as the ``agent-review-loop`` command
(``app.main:main``)."""

import sys

from app.main import main

if __name__ == "__main__":
    sys.exit(main())
