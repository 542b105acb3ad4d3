import importlib.util
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_symbol_table_matches_the_package():
    spec = importlib.util.spec_from_file_location("gen_symbols", ROOT / "docs" / "gen_symbols.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert (ROOT / "docs" / "symbols.md").read_text() == gen.render(), \
        "docs/symbols.md is stale: run python docs/gen_symbols.py"


def test_import_dflow_stays_light():
    code = "import sys, dflow; print(sorted(m for m in ('distributed', 'cupy', 'tensorflow') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_the_docs_name_files_that_exist():
    """Paths such as ``dflow/ops/math/math_ops.py`` in the docs follow the code when it moves."""
    import re

    missing = set()
    for doc in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        text = doc.read_text()
        for m in re.finditer(r"(?<![\w/.])((?:dflow|tests|benchmarks|examples|docs)/[\w/.-]*\w)(?![\w/.-]*<)", text):
            path = m.group(1)
            if not (ROOT / path).exists() and not (ROOT / (path + ".py")).exists():
                missing.add(f"{doc.name}: {path}")
    assert not missing, sorted(missing)
