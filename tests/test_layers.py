"""The layers of the code base are a checked rule, not a remembered one (import-linter)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_imports_follow_the_layers() -> None:
    # The contracts are in pyproject.toml ([tool.importlinter]); a broken one names the offending import.
    completed = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
                                "lint_imports_command()"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stdout[-3000:]
    assert "BROKEN" not in completed.stdout


def test_no_module_imports_a_private_name_of_another() -> None:
    # A private name (_x) is never imported across modules: if two modules need it, it is public below.
    offenders = []
    for path in sorted((ROOT / "ga").rglob("*.py")) + sorted((ROOT / "experiments").glob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            stripped = line.strip()
            if stripped.startswith("from ") and " import " in stripped:
                names = stripped.split(" import ", 1)[1].strip("()").split(",")
                if any(name.strip().split(" as ")[0].startswith("_") for name in names if name.strip()):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {stripped}")
    assert not offenders, "\n".join(offenders)
