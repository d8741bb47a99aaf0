"""The ``arl`` entry point: ``engine.cli.main.main`` with the keyring as the stored-key look-up.

``engine/`` never imports keyring, so the command-line program installs the look-up here
(``engine.cli.common.set_key_provider``) before running the command. Run without this
entry point (``python -m engine.cli.main``), ``arl`` sees only ``OPENAI_API_KEY``.
Installing the look-ups imports neither keyring nor the review loop: keyring is loaded
when a key is read (``arl_keys.store``), so ``arl score`` starts as fast as
``python -m engine.cli score``.
"""

from __future__ import annotations

import sys

from arl_keys import api_key_for


def main(argv: list[str] | None = None) -> int:
    from engine.cli import common as cli_common, main as cli
    from engine.collector import freeze_after_imports

    if argv is None:  # the arl script: this process runs one command, then exits
        freeze_after_imports()
    cli_common.set_key_provider(api_key_for)
    cli_common.set_signing_provider(_signing_key)
    return cli.main(argv)


def _signing_key() -> tuple[bytes, str, str]:
    from arl_keys.signing import signing_key

    key = signing_key()
    return key.material, key.where, key.note


if __name__ == "__main__":
    sys.exit(main())
