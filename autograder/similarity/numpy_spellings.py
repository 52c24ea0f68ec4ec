"""The one table of NumPy spellings taken for one operation when answers are compared (`program_form`):
each spelling on the left is rewritten to the form on the right before an answer is fingerprinted, so a copier
who turns `np.dot(a, b)` into `a @ b` changes nothing. Documented in docs/instructors/integrity.md, row for row.

Only spellings that are the same operation on the 2-D arrays these exercises' contracts fix are here
(`np.hstack` of 1-D arrays joins along axis 0, `np.dot` of 3-D arrays is not `@`): an honest answer that picks
another operation (`np.c_`, `np.block`, `np.append`, `np.einsum`) is left as it is, so that answers that differ
stay different.
"""

import ast

# np.<name>(a, b) -> a <op> b
OPERATORS: dict[str, type[ast.operator]] = {
    "dot": ast.MatMult, "matmul": ast.MatMult,
    "add": ast.Add, "subtract": ast.Sub, "multiply": ast.Mult, "divide": ast.Div, "true_divide": ast.Div,
    "power": ast.Pow,
}
# a.<name>(b) -> a <op> b
METHODS: dict[str, type[ast.operator]] = {"dot": ast.MatMult}
# np.<name>(seq) -> np.concatenate(seq, axis=<axis>), a tuple written as a list; np.concatenate's own axis (0
# unless given) is kept
JOINS: dict[str, int] = {"hstack": 1, "column_stack": 1, "vstack": 0, "row_stack": 0}
# np.<name>(a, k) -> np.<name>(a, axis=k): `axis` is their second parameter
AXIS_SECOND = ("stack", "sum", "mean", "max", "min", "argmax", "argmin")
# np.transpose(a) -> a.T
TRANSPOSE = "transpose"

TABLE = [  # (spellings, the one form), as the docs show them
    ("np.dot(a, b), np.matmul(a, b), a.dot(b)", "a @ b"),
    ("np.add(a, b), np.subtract(a, b), np.multiply(a, b), np.divide(a, b), np.true_divide(a, b), "
     "np.power(a, b)", "a + b, a - b, a * b, a / b, a / b, a ** b"),
    ("np.hstack((a, b)), np.column_stack([a, b]), np.concatenate((a, b), 1)", "np.concatenate([a, b], axis=1)"),
    ("np.vstack((a, b)), np.row_stack([a, b]), np.concatenate((a, b))", "np.concatenate([a, b], axis=0)"),
    ("np.transpose(a)", "a.T"),
    ("np.stack(a, 1), np.sum(a, 1), np.mean, np.max, np.min, np.argmax, np.argmin", "np.stack(a, axis=1), ..."),
    ("1.0, 2.0 (a whole number written as a float)", "1, 2"),
]


def _numpy_call(node: ast.Call, numpy: str) -> str | None:
    """`name` of a call `np.name(...)` (`numpy` the name NumPy goes by), else None."""
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == numpy:
        return func.attr
    return None


def axis_named(node: ast.Call, numpy: str = "np") -> ast.Call | None:
    """The call with NumPy's `axis` given by name where it was given by position (`np.sum(a, 1)`,
    `np.concatenate((a, b), 1)`), nothing else changed; else None. How `axis` is passed is no style a copier
    keeps: the answer compared with its style, loosely (`program_form.program(style=True, loose=True)`), sets
    it aside too."""
    name = _numpy_call(node, numpy)
    args, keywords = node.args, node.keywords
    if (name in (*AXIS_SECOND, "concatenate") and len(args) == 2 and not any(k.arg == "axis" for k in keywords)
            and not any(isinstance(a, ast.Starred) for a in args)):
        return ast.Call(node.func, [args[0]], sorted([*keywords, ast.keyword("axis", args[1])],
                                                     key=lambda k: (k.arg is None, k.arg or "")))
    return None


def one_form(node: ast.Call, numpy: str = "np") -> ast.expr | None:
    """The one form of the call `node`, when the table has its spelling; else None. `node`'s own parts are
    reused, already rewritten."""
    name = _numpy_call(node, numpy)
    args, keywords = node.args, node.keywords
    if name in OPERATORS and len(args) == 2 and not keywords and not any(isinstance(a, ast.Starred) for a in args):
        return ast.BinOp(args[0], OPERATORS[name](), args[1])
    if name == TRANSPOSE and len(args) == 1 and not keywords:
        return ast.Attribute(args[0], "T", ast.Load())
    if name in JOINS or name == "concatenate":
        if not args or isinstance(args[0], ast.Starred):
            return None
        axis: ast.expr = ast.Constant(JOINS.get(name, 0))
        rest = [k for k in keywords if k.arg != "axis"]
        given = [k.value for k in keywords if k.arg == "axis"]
        if name == "concatenate" and len(args) == 2 and not given:
            given = [args[1]]
        elif len(args) != 1:
            return None
        if name == "concatenate" and given:
            axis = given[0]
        elif given:
            return None  # np.hstack(..., axis=...) is no NumPy call: left as written
        sequence = ast.List(list(args[0].elts), ast.Load()) if isinstance(args[0], ast.Tuple | ast.List) else args[0]
        return ast.Call(ast.Attribute(ast.Name(numpy, ast.Load()), "concatenate", ast.Load()), [sequence],
                        sorted([*rest, ast.keyword("axis", axis)], key=lambda k: k.arg or ""))
    if name in AXIS_SECOND:
        return axis_named(node, numpy)
    func = node.func
    if (isinstance(func, ast.Attribute) and func.attr in METHODS and len(args) == 1 and not keywords
            and not (isinstance(func.value, ast.Name) and func.value.id == numpy)):
        return ast.BinOp(func.value, METHODS[func.attr](), args[0])
    return None
