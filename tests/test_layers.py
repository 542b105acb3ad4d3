"""The house's rules, checked on the import graph (docs/architecture.md, "Layers").

``lint-imports`` (run by .ci/run) checks the layers contract in setup.cfg: no package imports one
above it. These tests add what the contract cannot say: no circle of imports between two packages
(also inside ``dflow.ops``' namespaces' parent, counted as packages of dflow), kernels that import
nothing of dflow's, and folders small enough to find one's way in.
"""

from __future__ import annotations

import configparser
import pathlib

import grimp
import networkx as nx
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dflow"


@pytest.fixture(scope="module")
def imports() -> grimp.ImportGraph:
    return grimp.build_graph("dflow", cache_dir=None)


def package_of(module: str) -> str | None:
    """The package of dflow that ``module`` belongs to (``dflow.ops.nn.conv_ops`` -> ``dflow.ops``);
    None for the root package, which assembles the public API from all of them."""
    parts = module.split(".")
    return None if len(parts) == 1 else ".".join(parts[:2])


def package_graph(imports: grimp.ImportGraph) -> nx.DiGraph:
    g = nx.DiGraph()
    for importer in imports.modules:
        a = package_of(importer)
        for imported in imports.find_modules_directly_imported_by(importer):
            b = package_of(imported)
            if a and b and a != b:
                g.add_edge(a, b)
    return g


def test_no_circle_spans_two_packages(imports):
    g = package_graph(imports)
    circles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert not circles, f"packages that import each other (a circle): {circles}"


def test_a_circle_through_a_function_level_import_would_be_found():
    g = grimp.ImportGraph()
    g.add_import(importer="dflow.ops.math.math_ops", imported="dflow.framework.graph")
    g.add_import(importer="dflow.framework.composite", imported="dflow.ops.math.math_ops")  # inside a function
    g.add_import(importer="dflow.sessions.session", imported="dflow.ops.math.math_ops")
    circles = [sorted(c) for c in nx.strongly_connected_components(package_graph(g)) if len(c) > 1]
    assert circles == [["dflow.framework", "dflow.ops"]]


def test_nothing_below_the_root_imports_the_root(imports):
    """``import dflow`` inside the package would tie every layer to every other through it."""
    importers = imports.find_modules_that_directly_import("dflow")
    assert importers <= {"dflow.__main__", "dflow.cli", "dflow.demo"}, sorted(importers)


def test_kernels_import_nothing_of_dflow_but_kernels_and_no_kernel_imports_itself_back(imports):
    kernels = {m for m in imports.modules if m == "dflow.kernels" or m.startswith("dflow.kernels.")}
    outside = {(k, m) for k in kernels for m in imports.find_modules_directly_imported_by(k)
               if m.startswith("dflow") and m not in kernels}
    assert not outside
    g = nx.DiGraph((k, m) for k in kernels for m in imports.find_modules_directly_imported_by(k) if m in kernels)
    assert [c for c in nx.strongly_connected_components(g) if len(c) > 1] == []


# Modules of helpers every layer of their container uses (shape rules and errors of op blocks).
SHARED_HELPERS = {"_common"}


@pytest.mark.parametrize("contract", ["layers", "ops"])
def test_the_layers_contracts_name_every_package(contract):
    """A package the contract does not name is not checked at all: each contract names them all."""
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    section = cfg[f"importlinter:contract:{contract}"]
    layers = section["layers"]
    named = {name.strip() for line in layers.split("\n") for name in line.replace(":", "|").split("|")
             if name.strip()}
    container = ROOT.joinpath(*section["containers"].split("."))
    packages = {p.name for p in container.iterdir() if (p / "__init__.py").exists()}
    modules = {p.stem for p in container.glob("*.py")} - {"__init__"} - SHARED_HELPERS
    packages |= modules
    assert packages - named == set(), f"packages outside the {contract!r} contract in setup.cfg"


def _modules(folder: pathlib.Path) -> list:
    return [p for p in folder.glob("*.py") if p.name != "__init__.py"]


def test_no_folder_holds_more_than_25_modules_or_a_fifth_of_the_lines():
    total = sum(len(p.read_text().splitlines()) for p in PACKAGE.rglob("*.py"))
    for folder in [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir() and p.name != "__pycache__")]:
        modules = _modules(folder)
        lines = sum(len(p.read_text().splitlines()) for p in modules)
        assert len(modules) <= 25, f"{folder.relative_to(ROOT)} holds {len(modules)} modules"
        assert lines <= total / 5, f"{folder.relative_to(ROOT)} holds {lines} of {total} lines"
