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


def test_no_two_modules_import_each_other_even_inside_functions() -> None:
    # ga/cli and ga/launch.py, the cluster and the executor, the checkpoint and the manifest, the study's runner
    # and summary imported each other (one side inside a function): a reader could not tell which sat above.
    import ast

    modules = {}
    for path in sorted((ROOT / "ga").rglob("*.py")) + sorted((ROOT / "engine").glob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    imports: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    above = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(above + ([base] if base else []))
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):  # its own package: above it
                    imports[name].add(target)

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            current = todo.pop()
            if current == goal:
                return True
            if current not in seen:
                seen.add(current)
                todo.extend(imports[current])
        return False

    cycles = sorted(f"{a} <-> {b}" for a in imports for b in imports[a] if a < b and reaches(b, a))
    assert cycles == []
