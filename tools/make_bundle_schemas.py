"""Write docs/schemas/<file>.schema.json from the bundle's typed shapes (engine/bundle/schema.py).

    uv run python tools/make_bundle_schemas.py          # rewrite the schema files
    uv run python tools/make_bundle_schemas.py --check  # exit 1 when they are out of date

tests/engine/test_bundle_v2.py runs the check, so the documented schemas and the ones
``arl bundle verify`` validates against never drift apart.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.bundle.schema import json_schemas

OUT = ROOT / "docs" / "schemas"


def rendered() -> dict[str, str]:
    return {
        name: json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
        for name, schema in json_schemas().items()
    }


def main(argv: list[str]) -> int:
    files = rendered()
    if "--check" in argv:
        stale = [
            n
            for n, text in files.items()
            if not (OUT / n).is_file() or (OUT / n).read_text(encoding="utf-8") != text
        ]
        for n in stale:
            print(f"docs/schemas/{n} is out of date: run tools/make_bundle_schemas.py")
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for n, text in files.items():
        (OUT / n).write_text(text, encoding="utf-8")
    print(f"Wrote {len(files)} schema files to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
