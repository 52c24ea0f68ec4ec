"""An answer as the program it is, not the text it is written in: what `winnowing` fingerprints and `evidence`
bags. The answer is parsed and its syntax tree normalised, then cut into tokens statement by statement, each
token carrying the characters of the student's own statement it came from (for highlighting):

- parentheses, layout and comments are gone by construction (the tree has none); `pass`, docstrings and other
  bare constants, code after `return`/`raise`/`break`/`continue` and the branches of a constant test dropped;
- the assignment's own names kept (the release's functions, modules and parameters: a swapped `w_hh`/`w_hx`
  still differs); a release function's def line with renamed parameters is read as the release's, and its
  body as the answer (the def line is the release's when not renamed, and then not in the answer at all);
- keyword arguments in the order of their names; NumPy's spellings of one operation as one form (the table is
  `numpy_spellings`); a whole number written as a float as the number;
- a temporary used once inlined (`z = w @ x; return f(z)` is `return f(w @ x)`); independent statements in a
  canonical order (`_ordered`); the operands of `+` and `*` (sequences aside: `[a] + [b]` is not `[b] + [a]`)
  in a canonical order;
- every other name by its role and first use: `v0, v1, ...` for what the answer assigns, `i0, ...` for loop and
  comprehension variables, `a0, ...` for a nested function's or lambda's parameters, `f0, ...` for a function
  it defines, `g0, ...` for what it reads and never assigns; `np` for NumPy under any alias.

Bad input: an answer that does not parse is compared on what parses (its top-level statements, each parsed on
its own) and the rest on its text (`code_tokens`), and `Program.problem` says so in one line; an answer of more
than `MAX_NODES` syntax nodes, nested deeper than `MAX_DEPTH`, or cut at `MAX_TOKENS` is compared on its text,
and `problem` says the normalisation stopped at its bound.
"""

import ast
import copy
import functools
import heapq
import keyword
import math
from dataclasses import dataclass

from autograder.similarity.code_tokens import KEPT, MAX_TOKENS, NAME, STRING, Token, lexemes, tokens
from autograder.similarity.numpy_spellings import axis_named, one_form

MAX_NODES = 20_000  # syntax nodes an answer may have to be normalised (this course's answers: 10 to 300)
MAX_DEPTH = 100  # nesting of the tree: the walks here recurse, and a chain of 5000 `+` would exhaust the stack
MAX_INLINED = 200  # temporaries inlined in one answer
NUMPY = "np"
END = "⟩"  # a token closing a block, as the dedent of the source did

# What the normalisation sets aside, as the evidence names it (`seen_through`).
DISGUISES = ("layout", "comments", "parentheses", "pass statements", "docstrings", "dead code", "names",
             "keyword order", "NumPy spellings", "numbers", "temporaries", "statement order", "operand order")
_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)
_EXITS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def signature(function: str, parameters: list[str]) -> str:
    """How a release function's parameters travel in the kept names: `concat_weights(w_hh,w_hx)` (no name has
    parentheses, so the tokeniser never takes it for one)."""
    return f"{function}({','.join(parameters)})"


def signatures(kept: frozenset[str]) -> dict[str, list[str]]:
    """The release functions' parameters that `signature` put in the kept names."""
    found = {}
    for item in kept:
        if item.endswith(")") and "(" in item:
            name, _, rest = item[:-1].partition("(")
            found[name] = [p for p in rest.split(",") if p]
    return found


@dataclass(frozen=True)
class Program:
    tokens: tuple[Token, ...]
    marks: tuple[tuple[str, tuple], ...]  # (disguise, what of it the answer holds): compared by `seen_through`
    problem: str = ""  # one line when not all of the answer was normalised

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(t.text for t in self.tokens)


class _Stop(Exception):
    """The normalisation reached a bound."""


@functools.lru_cache(maxsize=8192)
def program(source: str, kept: frozenset[str] = frozenset(), style: bool = False, loose: bool = False) -> Program:
    """`source` (an answer region) normalised and cut into tokens; never raises, whatever the text. With
    `style`, only what changes no style is set aside (parentheses, layout, comments, `pass`, docstrings, dead
    code, keyword order, a renamed def line), every other name is `V`, and a style honest students share
    (`np.dot` for `@`, a temporary before `return`, `1.0` for `1`) is kept to tell them apart; with `loose` as
    well, temporaries and `axis` given by position are set aside too (a copier's first moves, and habits honest
    students vary on)."""
    raw = tokens(source, kept)
    marks: dict[str, list] = {d: [] for d in DISGUISES}
    marks["comments"] = [text[1:].strip() for kind, text, _, _ in lexemes(source) if kind == "comment"]
    marks["layout"] = ["".join(ch for ch in source if ch.isspace())]
    if len(raw) >= MAX_TOKENS:
        return _as_text(raw, marks, f"normalisation stopped at its bound ({MAX_TOKENS} tokens): compared on its text")
    text, starts, removed = _dedented(source)
    lines = text.split("\n")

    def offset(line: int, col: int) -> int:
        line = min(max(line, 1), len(lines))
        return starts[line - 1] + removed[line - 1] + len(lines[line - 1].encode()[:col].decode(errors="ignore"))

    try:
        tree, unparsed, problem = _parsed(text, source, starts, kept)
        _bounded(tree)
        marks["parentheses"] = [max(0, sum(t.text == "(" for t in raw) - ast.unparse(tree).count("("))]
        names = _Names(kept, signatures(kept))
        tree.body = _normalised(tree.body, names, marks, style, loose)
        found = _emit(tree.body, offset, len(source), names, marks) + unparsed
    except Exception as exc:  # noqa: BLE001 - hostile text: a bound reached, or the interpreter's own limits
        why = str(exc) if isinstance(exc, _Stop) else type(exc).__name__
        return _as_text(raw, marks, f"normalisation stopped at its bound ({why}): compared on its text")
    return Program(tuple(found[:MAX_TOKENS]), _frozen(marks), problem)


# An answer compared as the program it is, as its syntax with its style (`program(style=True)`), the same with
# temporaries and `axis` by position aside ("loose"), and as its text (names and layout aside): what each sets
# aside, and what it keeps to tell honest students apart. The style form without "loose" is kept beside it: set
# aside there too, those habits made honest answers commoner and renamed copies harder to find (the benchmark's
# 60-student classes: 2 of 9 renamed, parenthesised and padded copies lost).
FORMS = ("program", "style", "loose", "text")


def answer_tokens(source: str, kept: frozenset[str] = frozenset(), form: str = "program") -> list[Token]:
    """The tokens an answer is compared on, in `form` (one of FORMS)."""
    if form == "text":
        return _bare_atoms(tokens(source, kept))
    return list(program(source, kept, form in ("style", "loose"), form == "loose").tokens)


def _bare_atoms(found: list[Token]) -> list[Token]:
    """`(x)` as `x` where the parentheses call nothing: as text too, what a name or a number is wrapped in says
    nothing of who wrote it, and a copier's parentheses, shared by no honest student, made two copiers of
    different sources look alike (the benchmark's held-out classes: every honest pair it flagged)."""
    out: list[Token] = []
    i = 0
    while i < len(found):
        if (found[i].text == "(" and i + 2 < len(found) and found[i + 2].text == ")" and _atom(found[i + 1].text)
                and not (out and _ends_callee(out[-1].text))):
            out.append(found[i + 1])
            i += 3
            continue
        out.append(found[i])
        i += 1
    return out


def _is_name(text: str) -> bool:
    return text.isidentifier() and not keyword.iskeyword(text)


def _atom(text: str) -> bool:
    return _is_name(text) or text[:1].isdigit() or text == STRING


def _ends_callee(text: str) -> bool:
    """Whether a `(` after this token calls what it ends (`f(x)`, `g()(x)`, `a[0](x)`), not a bracket of its own."""
    return text in (")", "]") or _is_name(text)


def _as_text(raw: list[Token], marks: dict[str, list], problem: str) -> Program:
    return Program(tuple(raw), _frozen(marks), problem)


def _frozen(marks: dict[str, list]) -> tuple[tuple[str, tuple], ...]:
    return tuple((d, tuple(map(str, marks[d]))) for d in DISGUISES)


def seen_through(a: Program, b: Program) -> list[str]:
    """The disguises in which two answers differ and that the normalisation set aside, in DISGUISES' order."""
    theirs = dict(b.marks)
    return [d for d, mine in a.marks if mine != theirs.get(d)]


def _dedented(source: str) -> tuple[str, list[int], list[int]]:
    """The source with the indentation its lines share taken out, each line's start in the source, and how
    many characters each line lost (an answer region is a function's body, indented)."""
    lines = source.split("\n")
    indents = [line[:len(line) - len(line.lstrip(" \t"))] for line in lines if line.strip()]
    common = min(indents, key=len) if indents else ""
    while common and not all(i.startswith(common) for i in indents):
        common = common[:-1]
    starts, removed, out, at = [], [], [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
        cut = len(common) if line.strip() else len(line)
        removed.append(cut)
        out.append(line[cut:])
    return "\n".join(out), starts, removed


_CONTINUED = ("else", "elif", "except", "finally", ")", "]", "}", "@")


def _parsed(text: str, source: str, starts: list[int], kept: frozenset[str]) -> tuple[ast.Module, list[Token], str]:
    """The answer's syntax tree; when it does not parse, the tree of its top-level statements that parse on
    their own, the others' tokens as text, and the line saying so."""
    try:
        return ast.parse(text), [], ""
    except (SyntaxError, ValueError) as exc:  # a null byte is a ValueError
        where = f"line {exc.lineno}: " if getattr(exc, "lineno", None) else ""
        first = where + (exc.msg if isinstance(exc, SyntaxError) else str(exc))
    lines = text.split("\n")
    heads = [i for i, line in enumerate(lines) if line.strip() and not line[0].isspace()
             and not line.lstrip().startswith(_CONTINUED)] or [0]
    module = ast.Module([], [])
    rest: list[Token] = []
    for begin, end in zip(heads, heads[1:] + [len(lines)], strict=True):
        chunk = "\n".join(lines[begin:end])
        try:
            part = ast.parse(chunk)
        except (SyntaxError, ValueError):
            stop = starts[end] - 1 if end < len(starts) else len(source)
            rest += tokens(source[starts[begin]:stop], kept, offset=starts[begin])
            continue
        ast.increment_lineno(part, begin)
        module.body += part.body
    return module, rest, f"does not parse ({first}): compared on what parses, the rest on its text"


def _bounded(tree: ast.AST) -> None:
    count, stack = 0, [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise _Stop(f"{MAX_NODES} syntax nodes")
        if depth > MAX_DEPTH:
            raise _Stop(f"nested deeper than {MAX_DEPTH}")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _constant_test(node: ast.expr) -> bool | None:
    return bool(node.value) if isinstance(node, ast.Constant) else None


class _Names:
    """The release's names and the canonical name of every other, by role and first use."""

    def __init__(self, kept: frozenset[str], signatures: dict[str, list[str]]) -> None:
        self.signatures = signatures
        self.parameters = {p for parameters in signatures.values() for p in parameters} - set(signatures)
        self.kept = (kept | KEPT) - self.parameters
        self.assigned: set[str] = set()  # what the answer assigns: a release parameter's name reused as a local
        self.numpy: set[str] = {NUMPY, "numpy"}
        self.given: dict[str, str] = {}
        self.counts: dict[str, int] = {}

    def keeps(self, name: str) -> bool:
        """A release function, module or builtin; a release parameter, unless the answer assigns that name
        (`h_t`, a parameter of `rnn_output`, is a local of `rnn_step`'s answer)."""
        return name in self.kept or (name in self.parameters and name not in self.assigned)

    def canonical(self, name: str, role: str) -> str:
        if name in self.numpy:
            return NUMPY
        if self.keeps(name):
            return name
        if name not in self.given:
            self.given[name] = f"{role}{self.counts.get(role, 0)}"
            self.counts[role] = self.counts.get(role, 0) + 1
        return self.given[name]


def _normalised(body: list[ast.stmt], names: _Names, marks: dict[str, list], style: bool = False,
                loose: bool = False) -> list[ast.stmt]:
    for node in ast.walk(ast.Module(body, [])):
        if isinstance(node, ast.Import):
            names.numpy |= {a.asname or a.name for a in node.names if a.name == "numpy"}
    body = _unwrapped(body, names, marks)
    names.assigned = set(_stored(ast.Module(body, [])))
    body = _cleaned(body, marks)
    module = _Expressions(names, marks, style, loose).visit(ast.Module(body, []))
    if style:
        if loose:  # `t = a @ b; return t + c` is `return a @ b + c`
            module.body = _inlined(module.body, names, marks)
        for node in ast.walk(module):
            if isinstance(node, ast.Name) and not names.keeps(node.id) and node.id != NUMPY:
                node.id = NAME
        return module.body
    body = _inlined(module.body, names, marks)
    body = _ordered(body, names, marks)
    _operands(body, names, marks, placeholders=True)
    _rename(body, names, marks)
    _operands(body, names, marks, placeholders=False)
    return body


def _unwrapped(body: list[ast.stmt], names: _Names, marks: dict[str, list]) -> list[ast.stmt]:
    """A release function's def replaced by its body, its parameters renamed to the release's by position. Where
    the answer defines more than one release function, each keeps its def (parameters renamed all the same): their
    bodies run one after the other would make every one after the first dead code behind its `return`."""
    out: list[ast.stmt] = []
    several = sum(isinstance(node, ast.FunctionDef) and node.name in names.signatures for node in body) > 1
    for node in body:
        if isinstance(node, ast.FunctionDef) and node.name in names.signatures:
            theirs = names.signatures[node.name]
            parameters = node.args.posonlyargs + node.args.args
            mapping = {a.arg: t for a, t in zip(parameters, theirs, strict=False) if a.arg != t}
            if mapping:
                marks["names"].extend(f"{m}->{t}" for m, t in mapping.items())
                for inner in ast.walk(ast.Module(node.body, [])):
                    if isinstance(inner, ast.Name) and inner.id in mapping:
                        inner.id = mapping[inner.id]
                for parameter in parameters:
                    parameter.arg = mapping.get(parameter.arg, parameter.arg)
            if several:
                out.append(node)
            else:
                out.extend(node.body)
        else:
            out.append(node)
    return out


def _cleaned(body: list[ast.stmt], marks: dict[str, list]) -> list[ast.stmt]:
    """`pass`, bare constants (docstrings), code after an exit and constant tests' dead branches dropped."""
    out: list[ast.stmt] = []
    for index, node in enumerate(body):
        if isinstance(node, ast.Pass):
            marks["pass statements"].append(index)
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            kind = "docstrings" if isinstance(node.value.value, str) else "pass statements"  # `...` too
            marks[kind].append(str(node.value.value)[:40])
            continue
        test = _constant_test(node.test) if isinstance(node, ast.If | ast.While) else None
        if test is not None and (isinstance(node, ast.If) or not test):  # `while True:` is no dead code
            marks["dead code"].append(ast.unparse(node.test))
            out.extend(_cleaned(node.body if test else node.orelse, marks))
            continue
        for attribute in ("body", "orelse", "finalbody"):
            inner = getattr(node, attribute, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                setattr(node, attribute, _cleaned(inner, marks) or ([ast.Pass()] if attribute == "body" else []))
        for handler in getattr(node, "handlers", []):
            handler.body = _cleaned(handler.body, marks) or [ast.Pass()]
        out.append(node)
        if isinstance(node, _EXITS):
            if index + 1 < len(body):
                marks["dead code"].append(len(body) - index - 1)
            break
    return out


class _Expressions(ast.NodeTransformer):
    """Keyword arguments ordered, NumPy's spellings as one form, whole numbers as numbers, constant `x if c
    else y` as its branch."""

    def __init__(self, names: _Names, marks: dict[str, list], style: bool = False, loose: bool = False) -> None:
        self.names, self.marks, self.style, self.loose = names, marks, style, loose

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.names.numpy and node.id != NUMPY:
            node.id = NUMPY
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        ordered = sorted(node.keywords, key=lambda k: (k.arg is None, k.arg or ""))
        if [k.arg for k in ordered] != [k.arg for k in node.keywords]:
            self.marks["keyword order"].append(",".join(str(k.arg) for k in node.keywords))
            node.keywords = ordered
        spelled = ast.unparse(node.func)
        form = (axis_named(node, NUMPY) if self.loose else None) if self.style else one_form(node, NUMPY)
        if form is None:
            return node
        self.marks["NumPy spellings"].append(spelled)
        return ast.copy_location(form, node)

    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        value = node.value
        whole = isinstance(value, float) and math.isfinite(value) and value == int(value) and abs(value) < 2**53
        if whole and not self.style:
            self.marks["numbers"].append(repr(value))
            node.value = int(value)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        test = _constant_test(node.test)
        if test is None:
            return node
        self.marks["dead code"].append(ast.unparse(node.test))
        return node.body if test else node.orelse


def _stored(node: ast.AST) -> list[str]:
    found = []
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store | ast.Del):
            found.append(inner.id)
        elif isinstance(inner, ast.arg):
            found.append(inner.arg)
        elif isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.append(inner.name)
        elif isinstance(inner, ast.alias):
            found.append(inner.asname or inner.name.split(".")[0])
        elif isinstance(inner, ast.AugAssign) and isinstance(inner.target, ast.Name):
            found.append(inner.target.id)
    return found


def _loaded(node: ast.AST) -> list[ast.Name]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


def _blocks(body: list[ast.stmt]) -> list[list[ast.stmt]]:
    """Every statement list of the tree, `body` first."""
    found, stack = [], [body]
    while stack:
        block = stack.pop()
        found.append(block)
        for node in block:
            for attribute in ("body", "orelse", "finalbody"):
                inner = getattr(node, attribute, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    stack.append(inner)
            stack.extend(h.body for h in getattr(node, "handlers", []))
    return found


def _inlined(body: list[ast.stmt], names: _Names, marks: dict[str, list], top: bool = True) -> list[ast.stmt]:
    """A temporary assigned once and read once, later in its own block, replaced by its value, when nothing
    its value reads is assigned on the way. A function the answer defines is its own scope: its temporaries are
    counted in its body (release functions kept as defs each use `result`). The release's starter lines, read
    into the last statements below, are `top`'s alone."""
    for node in body:
        if isinstance(node, ast.FunctionDef):
            node.body = _inlined(node.body, names, marks, top=False)
    while top and _alias_last(body):
        # A name given to what was written just before, last and never read (`answer = out`): the release's
        # starter `return answer`, a line of the release and not in the answer, returns `out`, as the
        # release's line `return out` (left out of the answer) does.
        marks["temporaries"].append(body[-1].targets[0].id)
        body = body[:-1]
    module = ast.Module(body, [])
    stores: dict[str, int] = {}
    for name in _stored(module):
        stores[name] = stores.get(name, 0) + 1
    loads: dict[str, int] = {}
    for node in _loaded(module):
        loads[node.id] = loads.get(node.id, 0) + 1
    done = 0
    for block in _blocks(body):
        i = 0
        while i < len(block) and done < MAX_INLINED:
            node = block[i]
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and stores.get(node.targets[0].id) == 1
                    and loads.get(node.targets[0].id) == 1 and _inline(block, i, node.targets[0].id, node.value)):
                marks["temporaries"].append(node.targets[0].id)
                del block[i]
                done += 1
                continue
            i += 1
    last = body[-1] if body and top else None
    if (isinstance(last, ast.Assign) and len(last.targets) == 1 and isinstance(last.targets[0], ast.Name)
            and not loads.get(last.targets[0].id)):
        # What the answer assigns last and never reads is what the release's starter `return w_h` returns (a
        # line of the release, not in the answer): `w_h = E` is `return E`.
        marks["temporaries"].append(last.targets[0].id)
        body[-1] = ast.copy_location(ast.Return(last.value), last)
    return body


def _alias_last(body: list[ast.stmt]) -> bool:
    """Whether the last statement names anew, never to be read, what the statement before it wrote last."""
    last = body[-1] if len(body) > 1 else None
    if not (isinstance(last, ast.Assign) and len(last.targets) == 1 and isinstance(last.targets[0], ast.Name)
            and isinstance(last.value, ast.Name)):
        return False
    if last.targets[0].id in {n.id for n in _loaded(ast.Module(body, []))}:
        return False
    for node in reversed(body[:-1]):
        # A loop's writes too: `out[i, k] = ...` in a loop fills `out`, which `answer = out` then names.
        written = effects(node)[1] - {"<effect>"}
        if written:
            return last.value.id in written
    return False


def _inline(block: list[ast.stmt], at: int, name: str, value: ast.expr) -> bool:
    reads = {n.id for n in _loaded(value)}
    for j in range(at + 1, len(block)):
        if reads & set(_stored(block[j])):
            return False
        for parent in ast.walk(block[j]):
            if isinstance(parent, ast.Lambda | ast.FunctionDef | ast.comprehension | ast.For | ast.While):
                if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(parent)):
                    return False  # read inside a loop or another scope: run more than once, or later
            for field, child in ast.iter_fields(parent):
                if isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx, ast.Load):
                    setattr(parent, field, copy.deepcopy(value))
                    return True
                if isinstance(child, list):
                    for k, item in enumerate(child):
                        if isinstance(item, ast.Name) and item.id == name and isinstance(item.ctx, ast.Load):
                            child[k] = copy.deepcopy(value)
                            return True
    return False


def _placeholder(node: ast.AST, names: _Names) -> str:
    """`node` as text with every name not kept as `V`: a key that renaming does not change."""
    shown = copy.deepcopy(node)
    for inner in ast.walk(shown):
        if isinstance(inner, ast.Name) and not names.keeps(inner.id):
            inner.id = "V"
    return ast.unparse(shown)


def effects(node: ast.stmt) -> tuple[set[str], set[str]]:
    """What a simple statement reads and writes; a bare expression (a call for its effect), and a method
    called on a name (`out.append(x)`), write."""
    writes = set(_stored(node))
    reads = {n.id for n in _loaded(node)}
    for inner in ast.walk(node):
        if isinstance(inner, ast.Subscript | ast.Attribute) and isinstance(inner.ctx, ast.Store):
            base = inner.value
            while isinstance(base, ast.Subscript | ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name):
                writes.add(base.id)
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and isinstance(inner.func.value,
                                                                                               ast.Name):
            writes.add(inner.func.value.id)
    if isinstance(node, ast.Expr):
        writes.add("<effect>")
        reads.add("<effect>")
    return reads, writes


def _ordered(body: list[ast.stmt], names: _Names, marks: dict[str, list]) -> list[ast.stmt]:
    """Each run of simple statements in a canonical order that keeps every dependence: of the statements whose
    predecessors are placed, the one whose text (names aside) sorts first."""
    for block in _blocks(body):
        i = 0
        while i < len(block):
            j = i
            while j < len(block) and isinstance(block[j], _SIMPLE):
                j += 1
            if j - i > 1:
                block[i:j] = _sorted_run(block[i:j], names, marks)
            i = j + 1
    return body


def _sorted_run(run: list[ast.stmt], names: _Names, marks: dict[str, list]) -> list[ast.stmt]:
    found = [effects(node) for node in run]
    after: dict[int, list[int]] = {i: [] for i in range(len(run))}
    waiting = [0] * len(run)
    for i in range(len(run)):
        for j in range(i + 1, len(run)):
            (ri, wi), (rj, wj) = found[i], found[j]
            if wi & (rj | wj) or wj & ri:
                after[i].append(j)
                waiting[j] += 1
    keys = [_placeholder(node, names) for node in run]
    ready = [(keys[i], i) for i in range(len(run)) if not waiting[i]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, i = heapq.heappop(ready)
        order.append(i)
        for j in after[i]:
            waiting[j] -= 1
            if not waiting[j]:
                heapq.heappush(ready, (keys[j], j))
    if order != sorted(order):
        marks["statement order"].append(tuple(order))
    return [run[i] for i in order]


def _is_sequence(node: ast.expr) -> bool:
    return isinstance(node, ast.List | ast.Tuple | ast.ListComp | ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str | bytes)) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple", "str"))


def _operands(body: list[ast.stmt], names: _Names, marks: dict[str, list], placeholders: bool) -> None:
    """The operands of each chain of `+` (or of `*`) in a canonical order, innermost first; a chain with a
    sequence in it is left as written."""
    def key(node: ast.AST) -> str:
        return _placeholder(node, names) if placeholders else ast.unparse(node)

    def chain(node: ast.expr, op: type) -> list[ast.expr]:
        if isinstance(node, ast.BinOp) and isinstance(node.op, op):
            return chain(node.left, op) + chain(node.right, op)
        return [node]

    class Sorter(ast.NodeTransformer):
        def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
            self.generic_visit(node)
            if not isinstance(node.op, ast.Add | ast.Mult):
                return node
            op = type(node.op)
            parts = chain(node, op)
            if any(_is_sequence(p) for p in parts):
                return node
            ordered = sorted(parts, key=key)
            if placeholders and [id(p) for p in ordered] != [id(p) for p in parts]:
                marks["operand order"].append(ast.unparse(node))
            out = ordered[0]  # rebuilt left to right: `a + (b + c)` is the chain `a + b + c`
            for part in ordered[1:]:
                out = ast.BinOp(out, op(), part)
            return ast.copy_location(out, node)

    module = Sorter().visit(ast.Module(body, []))
    body[:] = module.body


def _rename(body: list[ast.stmt], names: _Names, marks: dict[str, list]) -> None:
    """Every name not kept by its role and first use, in the order the tree holds them."""
    module = ast.Module(body, [])
    role: dict[str, str] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.comprehension | ast.For):
            for inner in ast.walk(node.target):
                if isinstance(inner, ast.Name):
                    role.setdefault(inner.id, "i")
        elif isinstance(node, ast.arg):
            role.setdefault(node.arg, "a")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            role.setdefault(node.name, "f")
    stored = set(_stored(module))

    def name(text: str) -> str:
        new = names.canonical(text, role.get(text, "v" if text in stored else "g"))
        if new != text and text not in names.numpy:
            marks["names"].append(text)
        return new

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            node.id = name(node.id)
        elif isinstance(node, ast.arg):
            node.arg = name(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            node.name = name(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            node.names = [name(n) for n in node.names]
        elif isinstance(node, ast.alias) and node.asname:
            node.asname = name(node.asname)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(module)


def _emit(body: list[ast.stmt], offset, size: int, names: _Names, marks: dict[str, list]) -> list[Token]:
    """The normalised statements' tokens, each spanning the student's own statement (a compound statement's
    header spans up to its body)."""
    found: list[Token] = []
    last = [0, 0]

    def span(node: ast.AST, body_start: ast.AST | None = None) -> tuple[int, int]:
        if getattr(node, "lineno", None) is None:
            return last[0], last[1]
        start = offset(node.lineno, node.col_offset)
        if body_start is not None and getattr(body_start, "lineno", None) is not None:
            end = offset(body_start.lineno, body_start.col_offset)
        else:
            end = offset(node.end_lineno or node.lineno, node.end_col_offset or 0)
            # A temporary inlined into it keeps the characters of its own assignment: the span covers them too.
            for inner in ast.walk(node):
                if getattr(inner, "lineno", None) is not None and getattr(inner, "end_lineno", None) is not None:
                    start = min(start, offset(inner.lineno, inner.col_offset))
                    end = max(end, offset(inner.end_lineno, inner.end_col_offset or 0))
        last[:] = [start, max(start, min(end, size))]
        return last[0], last[1]

    def text(source: str, where: tuple[int, int]) -> None:
        for kind, value, _, _ in lexemes(source):
            if kind != "comment":
                found.append(Token(STRING if kind == "string" else value, *where))

    def block(statements: list[ast.stmt]) -> None:
        for node in statements:
            parts = {a: getattr(node, a) for a in ("body", "orelse", "finalbody", "handlers")
                     if isinstance(getattr(node, a, None), list)}
            if not parts or isinstance(node, ast.Match):
                text(ast.unparse(node), span(node))
                continue
            header = copy.copy(node)
            for attribute in parts:
                setattr(header, attribute, [])
            text(ast.unparse(header), span(node, node.body[0] if node.body else None))
            block(node.body)
            found.append(Token(END, *last))
            for handler in parts.get("handlers", []):
                shell = copy.copy(handler)
                shell.body = []
                text(ast.unparse(shell), span(handler, handler.body[0] if handler.body else None))
                block(handler.body)
                found.append(Token(END, *last))
            for attribute, word in (("orelse", "else :"), ("finalbody", "finally :")):
                if parts.get(attribute):
                    text(word, last)
                    block(parts[attribute])
                    found.append(Token(END, *last))

    block(body)
    return found
