"""Draws docs/images/layers.png: dflow's packages in the layers of setup.cfg's import contract.

Each row is a layer of the contract, top to bottom; an arrow is "imports", labelled with the number
of modules of one package that import the other, found with grimp (the graph ``lint-imports`` reads).
Arrows to the layer directly below are drawn; imports that skip layers appear only as a count in the
importer's label ("deeper imports"), or the picture becomes a hairball.

Run: ``python docs/gen_layers.py`` (needs Graphviz's ``dot`` on the PATH; a documentation tool only).
"""

from __future__ import annotations

import collections
import configparser
import pathlib
import subprocess

import grimp

ROOT = pathlib.Path(__file__).resolve().parent.parent


def contract_layers() -> list[list[str]]:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    text = cfg["importlinter:contract:layers"]["layers"]
    return [[n.strip() for n in line.replace(":", "|").split("|") if n.strip()]
            for line in text.strip().splitlines()]


def package_imports() -> collections.Counter:
    """``(importer package, imported package) -> number of importing modules``."""
    graph = grimp.build_graph("dflow", cache_dir=None)
    counts: collections.Counter = collections.Counter()
    for importer in graph.modules:
        parts = importer.split(".")
        if len(parts) < 2:
            continue
        seen = set()
        for imported in graph.find_modules_directly_imported_by(importer):
            q = imported.split(".")
            if len(q) >= 2 and q[1] != parts[1] and q[1] not in seen:
                seen.add(q[1])
                counts[(parts[1], q[1])] += 1
    return counts


def modules_and_lines(package: str) -> tuple[int, int]:
    path = ROOT / "dflow" / package
    files = list(path.rglob("*.py")) if path.is_dir() else [path.with_suffix(".py")]
    return len(files), sum(len(f.read_text().splitlines()) for f in files)


def dot_source() -> str:
    layers = contract_layers()
    counts = package_imports()
    rank = {p: i for i, layer in enumerate(layers) for p in layer}
    out = ["digraph layers {", '  rankdir=TB; nodesep=0.25; ranksep=0.35;',
           '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", fontname="Helvetica", fontsize=11];',
           '  edge [color="#7a8aa6", fontname="Helvetica", fontsize=9, arrowsize=0.6];']
    for i, layer in enumerate(layers):
        out.append(f"  subgraph layer{i} {{ rank=same;")
        for p in layer:
            n, lines = modules_and_lines(p)
            far = sum(c for (a, b), c in counts.items() if a == p and rank.get(b, 0) > i + 1)
            size = f"{lines / 1000:.1f}k" if lines >= 1000 else str(lines)
            label = f"{p}\\n{n} modules, {size} lines"
            if far:
                label += f"\\n(+{far} deeper imports)"
            out.append(f'    "{p}" [label="{label}"];')
        out.append("  }")
    for i in range(len(layers) - 1):  # keep the rows in order even where no arrow joins them
        out.append(f'  "{layers[i][0]}" -> "{layers[i + 1][0]}" [style=invis];')
    for (a, b), c in sorted(counts.items()):
        if a in rank and b in rank and rank[b] == rank[a] + 1:
            out.append(f'  "{a}" -> "{b}" [label=" {c}"];')
    out.append("}")
    return "\n".join(out) + "\n"


def main() -> None:
    target = ROOT / "docs" / "images" / "layers.png"
    subprocess.run(["dot", "-Tpng", "-Gdpi=110", "-o", str(target)], input=dot_source(), text=True, check=True)
    print(f"wrote {target.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
