"""Import circles inside one package: `python tools/import_cycles.py apps/notifications` prints each circle of
its modules (imports at module level and inside functions alike; `if TYPE_CHECKING:` imports left out, they are
for the type checker only) and exits 1 when there is one. tests/notifications/test_registry.py runs it."""

import ast
import pathlib
import sys


def _module_name(path: pathlib.Path, root: pathlib.Path) -> str:
    parts = list(path.relative_to(root.parent.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_only(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_of(path: pathlib.Path, module: str, is_package: bool, known: set[str]) -> set[str]:
    tree = ast.parse(path.read_text())
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if _type_checking_only(node, parents):
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            stem = f"{base}.{node.module}" if node.level and node.module else (node.module or base)
            if not node.level:
                stem = node.module or ""
            targets = [stem] + [f"{stem}.{alias.name}" for alias in node.names]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module:
                found.add(target)
    return found


def cycles(root: pathlib.Path) -> list[list[str]]:
    files = {
        _module_name(path, root): path
        for path in root.rglob("*.py")
        if "migrations" not in path.parts and "tests" not in path.parts
    }
    known = set(files)
    graph = {name: imports_of(path, name, path.name == "__init__.py", known) for name, path in files.items()}
    # Tarjan's strongly connected components: every component of more than one module is a circle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return found


if __name__ == "__main__":
    circles = cycles(pathlib.Path(sys.argv[1]).resolve())
    for circle in circles:
        print("import circle:", " ↔ ".join(circle))
    sys.exit(1 if circles else 0)
