"""Whether a function, and everything it can reach by name, is the same at the end of a notebook as where its
test cell stands: read from the cells' text, never by running them.

Judging an exercise on its own (`autograder.grading.alone`) may then happen in the process that graded the notebook,
as it ends, instead of in a new one that runs the notebook again up to that cell. The answer errs one way
only: anything the reading cannot follow (IPython syntax, `global`, `globals()`, `exec`, star imports, a
later cell that rebinds or mutates a name the function reaches) answers "changed", and the exercise is
judged in a new process as before.
"""

import ast
import functools
import symtable
from collections.abc import Sequence
from dataclasses import dataclass

# Names through which code reaches others that no reading of the text can follow.
_OPAQUE = frozenset({"globals", "locals", "vars", "eval", "exec", "getattr", "setattr", "delattr", "__import__",
                     "importlib", "sys", "builtins", "__builtins__", "__dict__", "get_ipython"})


@dataclass(frozen=True)
class CellFacts:
    """What one cell's text says about the names it binds, reads and may change."""

    reads: dict[str, frozenset[str]]  # each name bound at the cell's top level: the global names it reads
    modules: frozenset[str]  # names bound by imports
    declared_global: frozenset[str]  # names any function in it declares `global` or `nonlocal`
    bound: frozenset[str]  # names bound or deleted at the cell's top level
    assigned: frozenset[str]  # names whose object it changes: `x.a = ...`, `x[0] = ...`
    called: frozenset[str]  # names whose methods it calls (`x.clear()`), which may change their object
    opaque: bool  # it uses `globals()`, `exec`, a star import...: what it changes cannot be read


def unchanged_after(sources: Sequence[str | None], index: int, name: str) -> bool:
    """`sources`: the notebook's code, cell by cell (None for a cell that runs no code); `index`: the test
    cell of `name`. True only if no cell after `index` can change what `name` computes."""
    facts = [None if source is None else cell_facts(source) for source in sources]
    if any(fact is False for fact in facts):
        return False
    reads: dict[str, set[str]] = {}
    modules: set[str] = set()
    declared_global: set[str] = set()
    for fact in facts:
        if fact:
            for bound, read in fact.reads.items():
                reads.setdefault(bound, set()).update(read)
            modules |= fact.modules
            declared_global |= fact.declared_global
    reach = _reach(name, reads)
    if reach is None or reach & (_OPAQUE | declared_global):
        return False
    # A module's functions (`np.dot(...)`) are read as calls, not changes.
    return not any(fact and (fact.opaque or (fact.bound | fact.assigned | (fact.called - modules)) & reach)
                   for fact in facts[index + 1:])


@functools.lru_cache(maxsize=4096)
def cell_facts(source: str) -> CellFacts | bool:
    """False for a cell that is not plain Python (IPython syntax) or cannot be read. Cached by text: most
    cells are the same in every submission (the instructor's, and the starter code left as it was)."""
    try:
        tree = ast.parse(source)
        table = symtable.symtable(source, "<cell>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    scopes: dict[str, set[str]] = {}
    for child in table.get_children():  # a def's body: the names it resolves at the notebook's level
        scopes.setdefault(child.get_name(), set()).update(_globals_of(child))
    reads: dict[str, set[str]] = {}
    modules: set[str] = set()
    opaque = False
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            # Decorators, defaults and bases run at the notebook's level: every name in them counts.
            outside = [*statement.decorator_list, *_defaults(statement)]
            read = {n.id for part in outside for n in ast.walk(part) if isinstance(n, ast.Name)}
            reads.setdefault(statement.name, set()).update(read | scopes.get(statement.name, set()))
            continue
        read = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name)}
        if isinstance(statement, ast.Import | ast.ImportFrom):
            bound = {(alias.asname or alias.name).partition(".")[0] for alias in statement.names}
            modules |= bound
            if any(alias.name == "*" for alias in statement.names):
                read.add("*")
                opaque = True
        else:
            bound = _stored(statement)
        for name in bound:
            reads.setdefault(name, set()).update(read)
    declared_global: set[str] = set()
    assigned: set[str | None] = set()
    called: set[str | None] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global | ast.Nonlocal):
            declared_global.update(node.names)
        elif isinstance(node, ast.Attribute | ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            assigned.add(_base(node))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            called.add(_base(node.func))
        elif isinstance(node, ast.Name) and node.id in _OPAQUE:
            opaque = True
    return CellFacts({name: frozenset(read) for name, read in reads.items()}, frozenset(modules),
                     frozenset(declared_global), frozenset(reads), frozenset(assigned - {None}),
                     frozenset(called - {None}), opaque)


def _defaults(statement: ast.AST) -> list[ast.AST]:
    if isinstance(statement, ast.ClassDef):
        return [*statement.bases, *statement.keywords]
    args = statement.args
    return [*args.defaults, *(d for d in args.kw_defaults if d is not None),
            *(a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.annotation),
            *([statement.returns] if statement.returns else [])]


def _globals_of(table: symtable.SymbolTable) -> set[str]:
    """The names a scope and the scopes inside it read at the notebook's level."""
    names = {symbol.get_name() for symbol in table.get_symbols()
             if symbol.is_global() or (symbol.is_referenced() and not symbol.is_local() and not symbol.is_free())}
    for child in table.get_children():
        names |= _globals_of(child)
    return names


def _reach(name: str, reads: dict[str, set[str]]) -> set[str] | None:
    """Every name `name` can reach through the notebook's top-level definitions; None if `name` is not
    defined where it can be read, or reaches a star import."""
    if name not in reads:
        return None
    reach, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current in reach:
            continue
        if current == "*":
            return None
        reach.add(current)
        todo.extend(reads.get(current, ()))
    return reach


def _stored(node: ast.AST) -> set[str]:
    """Names a statement binds or deletes where it runs (the functions it defines: by name only)."""
    names: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Name) and isinstance(current.ctx, ast.Store | ast.Del):
            names.add(current.id)
        elif isinstance(current, ast.ExceptHandler) and current.name:
            names.add(current.name)
        elif isinstance(current, ast.MatchAs | ast.MatchStar) and current.name:
            names.add(current.name)
        elif isinstance(current, ast.MatchMapping) and current.rest:
            names.add(current.rest)
        elif isinstance(current, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).partition(".")[0] for alias in current.names)
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(current.name)
            stack.extend(current.decorator_list)
            continue
        if isinstance(current, ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(current))
    return names


def _base(node: ast.AST) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None
