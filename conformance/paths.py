"""Where the harness's own data lives, in a checkout and in the installed wheel."""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
_CHECKOUT = PACKAGE_DIR.parent


def _locate(name: str) -> Path:
    inside = PACKAGE_DIR / name
    return inside if inside.is_dir() else _CHECKOUT / name


SUITES_DIR = _locate("suites")
FIXTURES_DIR = _locate("fixtures")
REGISTRY_DATA_DIR = PACKAGE_DIR / "registry" / "data"
