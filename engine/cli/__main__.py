"""``python -m engine.cli``: the ``arl`` command (``engine.cli.main.main``), without the
keyring look-up that the installed ``arl`` entry point adds (``arl_keys.cli``)."""

import sys

from engine.cli.main import main
from engine.collector import freeze_after_imports

freeze_after_imports()  # this process runs one command, then exits (engine.collector)
sys.exit(main())
