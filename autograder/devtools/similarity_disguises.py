"""What a copier who knows a checker exists does to an answer, leaving the program exactly what it was (issue
43): each disguise rewrites one catalogue answer (a whole solution cell, `def ...:` and its body), and
`same_behaviour` checks that the disguised answer does what the original does, on the graders' own inputs.
Used by the labelled classes (`similarity_class`), `make bench-similarity` and the tests.
"""

import ast

import numpy as np

from autograder.devtools.catalogue import solution_sources
from autograder.grader_support.exercise import run_exercise
from autograder.grader_support.student import InProcessStudent

_AXIS_SECOND = {"concatenate", "stack", "sum", "mean", "max", "min"}  # np.<f>(a, axis): axis second positionally


def _rewritten(code: str, change) -> str:
    tree = ast.parse(code)
    change(tree)
    return ast.unparse(ast.fix_missing_locations(tree))


def parenthesised(code: str) -> str:
    """Every name that is read wrapped in parentheses: `np.c_[(a_0), (a_1)]`."""
    tree = ast.parse(code)
    lines = code.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    spots = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            line = lines[node.lineno - 1].encode()
            begin = starts[node.lineno - 1] + len(line[:node.col_offset].decode())
            end = starts[node.end_lineno - 1] + len(lines[node.end_lineno - 1].encode()[:node.end_col_offset].decode())
            spots += [(end, ")"), (begin, "(")]
    for at, text in sorted(spots, reverse=True):
        code = code[:at] + text + code[at:]
    return code


def padded(code: str) -> str:
    """A `pass` after every statement, `if False:` dead statements before the first, and a dead statement
    after each `return`."""
    def pad(body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = [ast.If(ast.Constant(False), [ast.parse("unused = 0").body[0]], [])]
        for node in body:
            for attribute in ("body", "orelse", "finalbody"):
                inner = getattr(node, attribute, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    setattr(node, attribute, pad(inner))
            out += [node, ast.Pass()]
            if isinstance(node, ast.Return):
                out.append(ast.parse("print('unreachable')").body[0])
        return out

    def change(tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                node.body = pad(node.body)
    return _rewritten(code, change)


def documented(code: str) -> str:
    """A docstring of the copier's own at the top of every function, and a comment on every line."""
    def change(tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                node.body.insert(0, ast.Expr(ast.Constant("My own working, written from the lecture notes.")))
    text = _rewritten(code, change)
    return "\n".join(line + "  # my step" if line.strip() and not line.strip().startswith(("'", '"')) else line
                     for line in text.split("\n"))


class _Respelled(ast.NodeTransformer):
    """NumPy's other spellings of one operation: `a @ b` -> `np.matmul(a, b)` (not `np.dot`: on 3-D arrays it
    is another operation), `np.dot(a, b)` -> `a @ b`, `np.hstack((a, b))` -> `np.concatenate((a, b), axis=1)`,
    `np.vstack` -> axis 0."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.op, ast.MatMult):
            matmul = ast.Attribute(ast.Name("np", ast.Load()), "matmul", ast.Load())
            return ast.Call(matmul, [node.left, node.right], [])
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np"):
            return node
        if func.attr in ("dot", "matmul") and len(node.args) == 2 and not node.keywords:
            return ast.BinOp(node.args[0], ast.MatMult(), node.args[1])
        if func.attr in ("hstack", "vstack") and len(node.args) == 1 and not node.keywords:
            axis = 1 if func.attr == "hstack" else 0
            return ast.Call(ast.Attribute(func.value, "concatenate", ast.Load()), node.args,
                            [ast.keyword("axis", ast.Constant(axis))])
        return node


def respelled(code: str) -> str:
    return _rewritten(code, lambda tree: _Respelled().visit(tree))


def extracted(code: str) -> str:
    """What each function returns first put in a temporary, and a temporary assigned and returned inlined."""
    def change(tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                body = node.body
                last = body[-1]
                if (len(body) >= 2 and isinstance(last, ast.Return) and isinstance(last.value, ast.Name)
                        and isinstance(body[-2], ast.Assign) and len(body[-2].targets) == 1
                        and isinstance(body[-2].targets[0], ast.Name) and body[-2].targets[0].id == last.value.id
                        and sum(isinstance(n, ast.Name) and n.id == last.value.id for n in ast.walk(node)) == 2):
                    node.body = body[:-2] + [ast.Return(body[-2].value)]
                elif isinstance(last, ast.Return) and last.value is not None:
                    node.body = body[:-1] + [ast.parse("my_answer = 0").body[0], ast.Return(ast.Name("my_answer"))]
                    node.body[-2].value = last.value
    return _rewritten(code, change)


class _Keywords(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        func = node.func
        numpy = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np"
        axis = [k for k in node.keywords if k.arg == "axis"]
        if numpy and func.attr in _AXIS_SECOND and len(node.args) == 1 and axis:
            node.args.append(axis[0].value)
            node.keywords = [k for k in node.keywords if k.arg != "axis"]
        elif numpy and func.attr in _AXIS_SECOND and len(node.args) == 2 and not any(
                isinstance(a, ast.Starred) for a in node.args):
            node.keywords.append(ast.keyword("axis", node.args.pop()))
        node.keywords.reverse()
        return node


def keywords(code: str) -> str:
    """Keyword arguments in the reverse order, and NumPy's `axis` spelled positionally (or by name, where it
    was positional)."""
    return _rewritten(code, lambda tree: _Keywords().visit(tree))


def _sequence(node: ast.expr) -> bool:
    return isinstance(node, ast.List | ast.Tuple | ast.ListComp | ast.JoinedStr | ast.Constant) and not (
        isinstance(node, ast.Constant) and isinstance(node.value, int | float)) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple", "str"))


class _Commuted(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.BinOp:
        self.generic_visit(node)
        if isinstance(node.op, ast.Add | ast.Mult) and not (_sequence(node.left) or _sequence(node.right)):
            node.left, node.right = node.right, node.left
        return node


def commuted(code: str) -> str:
    """The operands of every `+` and `*` swapped (sequences aside: `[a] + [b]` is not `[b] + [a]`)."""
    return _rewritten(code, lambda tree: _Commuted().visit(tree))


# name -> the disguise; "stacked" is all of them, one after the other
DISGUISES = {"parenthesised": parenthesised, "padded": padded, "documented": documented, "respelled": respelled,
             "extracted": extracted, "keywords": keywords, "commuted": commuted}


def stacked(code: str) -> str:
    """Every disguise above, one after the other."""
    for disguise in DISGUISES.values():
        code = disguise(code)
    return code


def disguised(how: str, code: str) -> str:
    """`code` disguised `how` (a key of DISGUISES, or "stacked"); an answer that does not parse stays as it is."""
    try:
        return stacked(code) if how == "stacked" else DISGUISES[how](code)
    except SyntaxError:
        return code


def same_behaviour(assignment: str, exercise: str, original: str, disguise: str) -> bool:
    """Whether the disguised answer gets exactly the original's verdict from the graders (every case, its
    inputs drawn from their fixed seed, its message with the values it found): the disguise left the program
    as it was. The rest of the notebook is the reference."""
    verdicts = []
    for code in (original, disguise):
        namespace = {"np": np, "__name__": "__main__", "print": lambda *a, **k: None}
        for source in solution_sources(assignment).values():
            exec(source, namespace)  # noqa: S102 - the catalogue's own answers
        try:
            exec(code, namespace)  # noqa: S102
        except Exception as exc:  # noqa: BLE001 - a disguise that broke the code: reported, not raised
            verdicts.append(("does not run", type(exc).__name__))
            continue
        verdict = run_exercise(assignment, exercise, InProcessStudent(namespace))
        verdicts.append((verdict.score, [(c.name, c.earned, c.message) for c in verdict.cases],
                         verdict.counterexample))
    return verdicts[0] == verdicts[1]
