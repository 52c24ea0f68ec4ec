"""`similarity.program_form` rule by rule, on small answers written by hand: the exact normalised tokens each rule
gives and the marks the evidence reads (`seen_through`). The catalogue tests (test_similarity_program_form.py)
compare two answers' forms, which a rule applied alike to both passes whatever it does (names numbered from 1,
a loop variable named as an assignment's, a dependence broken in both): here each form is pinned, so such a
rule turned red."""

import pytest

from autograder.similarity import program_form as pf
from tests.unit.similarity_support import fresh_programs  # noqa: F401 - autouse: each test normalises afresh

# The release's names of these answers: `w`, `x`, `W_hh` and `c` are the assignment's own and kept.
KEPT = frozenset({"w", "x", "W_hh", "c"})
# Two release functions whose parameters travel in the kept names: `step(h, x)` and `out(h)`.
SIGNED = frozenset({pf.signature("step", ["h", "x"]), pf.signature("out", ["h"]), "step", "out", "w"})
# Marks that every answer has (its whitespace, its parentheses' count) and that these tests do not pin.
_UNPINNED = ("layout", "parentheses")


def _form(source: str, kept: frozenset[str] = KEPT, form: str = "program") -> str:
    return " ".join(t.text for t in pf.answer_tokens(source, kept, form))


def _marks(source: str, kept: frozenset[str] = KEPT) -> dict[str, list[str]]:
    found = pf.program(source, kept)
    assert found.problem == ""
    return {d: list(v) for d, v in found.marks if v and d not in _UNPINNED}


def _pinned(source: str, texts: str, marks: dict, kept: frozenset[str] = KEPT) -> None:
    assert _form(source, kept) == texts
    assert _marks(source, kept) == marks


def test_signatures_travel_in_the_kept_names():
    assert pf.signature("step", ["h", "x"]) == "step(h,x)"
    assert pf.signatures(frozenset({"step(h,x)", "out()", "w", "odd)", "f(g(a))"})) == {
        "step": ["h", "x"], "out": [], "f": ["g(a)"]}  # a name ending in `)` with no `(` is no signature


@pytest.mark.parametrize(("form", "texts"), [
    ("program", "return 1 * np . sum ( w , axis = 1 )"),  # temporary inlined, 1.0 as 1, axis by name
    ("style", "V = np . sum ( w , 1 ) return V * 1.0"),  # all kept as written, every other name V
    ("loose", "return np . sum ( w , axis = 1 ) * 1.0"),  # the temporary and axis by position set aside too
    ("text", "V = V . sum ( w , 1 ) return V * 1.0"),  # the text with the release's names kept
])
def test_each_form_of_one_answer(form, texts):
    assert _form("t = np.sum(w, 1)\nreturn t * 1.0", KEPT, form) == texts


def test_the_program_form_is_the_default():
    source = "t = np.sum(w, 1)\nreturn t * 1.0"
    assert [t.text for t in pf.answer_tokens(source, KEPT)] == list(pf.program(source, KEPT).texts)
    assert pf.program(source, KEPT).marks == (
        ("layout", ("   \n   ",)), ("comments", ()), ("parentheses", ("0",)), ("pass statements", ()),
        ("docstrings", ()), ("dead code", ()), ("names", ()), ("keyword order", ()),
        ("NumPy spellings", ("np.sum",)), ("numbers", ("1.0",)), ("temporaries", ("t",)), ("statement order", ()),
        ("operand order", ("np.sum(w, axis=1) * 1",)))


@pytest.mark.parametrize(("source", "texts"), [
    ("return (x) + (not) + (+) + ('a') + (1.5) + w(x)", "return x + ( not ) + ( + ) + S + 1.5 + w ( x )"),
    ("(x) + (y", "x + ( V"),  # an unclosed bracket at the end is left as it is
    ("return (y", "return ( V"),
    ("return 'ab'", "return S"),
])
def test_the_text_form_unwraps_only_a_name_a_number_or_a_string(source, texts):
    assert _form(source, KEPT, "text") == texts


def test_an_answer_over_a_bound_keeps_its_marks(monkeypatch):
    monkeypatch.setattr(pf, "MAX_NODES", 5)
    found = pf.program("y = x + w  # note\nreturn y * y", KEPT)
    assert "5 syntax nodes" in found.problem
    assert dict(found.marks)["comments"] == ("note",)
    assert found.texts == ("V", "=", "x", "+", "w", "return", "V", "*", "V")


@pytest.mark.parametrize(("source", "texts", "marks"), [
    ("pass\ny = x\npass\nreturn y", "return x", {"pass statements": ["0", "2"], "temporaries": ["y"]}),
    ('"' + "d" * 45 + '"\n...\nreturn x', "return x",  # a docstring's first 40 characters; `...` is a pass
     {"pass statements": ["Ellipsis"], "docstrings": ["d" * 40]}),
    ("return x", "return x", {}),
    ("y = w\nreturn y\nz = 1", "return w", {"dead code": ["1"], "temporaries": ["y"]}),
    ("y = w * x\nreturn y\nz = 1\nq = 2", "return w * x", {"dead code": ["2"], "temporaries": ["y"]}),
    ("if False:\n    a = 1\nelse:\n    pass\n    b = x\nwhile 0:\n    c2 = 1\nwhile True:\n    break\nreturn b",
     "while True : break ⟩ return x",  # `while True:` is a loop, not dead code
     {"pass statements": ["0"], "dead code": ["False", "0"], "temporaries": ["b"]}),
    ("if True:\n    pass\n    y = x\nreturn y", "return x",
     {"pass statements": ["0"], "dead code": ["True"], "temporaries": ["y"]}),
    ("try:\n    y = w(x)\nexcept ValueError:\n    pass\n    y = 0\nfinally:\n    pass\nreturn y",
     "try : v0 = w ( x ) ⟩ except ValueError : v0 = 0 ⟩ return v0",  # an empty `finally` gone
     {"pass statements": ["0", "0"], "names": ["y", "y", "y"]}),
    ("try:\n    y = w(x)\nexcept ValueError:\n    pass\nreturn y",
     "try : v0 = w ( x ) ⟩ except ValueError : pass ⟩ return v0",  # a handler is never empty
     {"pass statements": ["0"], "names": ["y", "y"]}),
    ("if c:\n    pass\nelse:\n    pass\nreturn x", "if c : pass ⟩ return x",  # a body is never empty, an else is
     {"pass statements": ["0", "0"]}),
])
def test_what_does_nothing_is_dropped_and_marked(source, texts, marks):
    _pinned(source, texts, marks)


@pytest.mark.parametrize(("source", "texts", "marks"), [
    ("return w(b=1, **x, a=2)", "return w ( a = 2 , b = 1 , ** x )", {"keyword order": ["b,None,a"]}),
    ("return np.transpose(w)", "return w . T", {"NumPy spellings": ["np.transpose"]}),
    ("return [1.0, 200.0, 9007199254740992.0, 2.5]", "return [ 1 , 200 , 9007199254740992.0 , 2.5 ]",
     {"numbers": ["1.0", "200.0"]}),  # 2**53 and over: a float that is no exact whole number is left
    ("return w if True else x", "return w", {"dead code": ["True"]}),
    ("return w if 0 else x", "return x", {"dead code": ["0"]}),
    ("return w if c else x", "return w if c else x", {}),
])
def test_expressions_in_one_form(source, texts, marks):
    _pinned(source, texts, marks)


@pytest.mark.parametrize(("source", "texts", "marks"), [
    ("a = x\nb = w\nreturn a * b * a * b", "v0 = w v1 = x return v0 * v0 * v1 * v1",
     {"names": ["b", "a", "a", "b", "a", "b"], "statement order": ["(1, 0)"]}),
    ("return q + p", "return g0 + g1", {"names": ["q", "p"]}),  # read, never assigned; no operand moved
    ("for k in x:\n    y = k\nreturn [j for j in y] + [lambda p: p]",
     "for i0 in x : v0 = i0 ⟩ return [ i1 for i1 in v0 ] + [ lambda a0 : a0 ]",
     {"names": ["k", "y", "k", "j", "j", "y", "p", "p"]}),
    ("def helper(p):\n    return p\nreturn helper(g) + helper(x)",
     "def f0 ( a0 ) : return a0 ⟩ return f0 ( g0 ) + f0 ( x )",
     {"names": ["helper", "p", "p", "helper", "g", "helper"]}),
    ("global t\nt = x\nreturn t + t", "global v0 v0 = x return v0 + v0", {"names": ["t", "t", "t", "t"]}),
    ("import math as m\nreturn m.sqrt(x)", "import math as v0 return v0 . sqrt ( x )", {"names": ["m", "m"]}),
    ("import os.path\nreturn os.path.join(x)", "import os . path return v0 . path . join ( x )",
     {"names": ["os"]}),
    # NumPy under any alias is `np`, and not a renamed name; `numpy` itself too, imported or not.
    ("import numpy as xp\nreturn xp.tanh(y)", "import numpy as np return np . tanh ( g0 )", {"names": ["y"]}),
    ("import math\nreturn numpy.tanh(x) + np.exp(x)", "import math return np . exp ( x ) + np . tanh ( x )",
     {"operand order": ["np.tanh(x) + np.exp(x)"]}),
    ("def helper(a):\n    return a * 2\nanswer = helper", "def f0 ( a0 ) : return 2 * a0 ⟩",
     {"names": ["helper", "a", "a"], "temporaries": ["answer"], "operand order": ["a * 2"]}),
])
def test_names_by_role_and_first_use(source, texts, marks):
    _pinned(source, texts, marks)


@pytest.mark.parametrize(("source", "texts", "marks"), [
    # A release parameter's name assigned, or a lambda's, is the answer's own name, not the release's.
    ("h = x * 2\nreturn h + h", "v0 = 2 * x return v0 + v0", {"names": ["h", "h", "h"], "operand order": ["x * 2"]}),
    ("return list(map(lambda h: h * 2, x))", "return list ( map ( lambda a0 : 2 * a0 , x ) )",
     {"names": ["h", "h"], "operand order": ["h * 2"]}),
    # A release def line with more parameters than the release's: read by position, the rest left.
    ("def step(p, q, r=0):\n    return p * q", "return h * x", {"names": ["p->h", "q->x"]}),
    # Two release functions in one cell: each kept as a def, its renamed parameters as the release's.
    ("def step(h, q):\n    return h * q\n\ndef out(k):\n    return k + 1",
     "def step ( a0 , a1 ) : return a0 * a1 ⟩ def out ( a0 ) : return 1 + a0 ⟩",
     {"names": ["q->x", "k->h", "h", "x", "h", "x", "h", "h"], "operand order": ["h + 1"]}),
])
def test_the_releases_parameters(source, texts, marks):
    _pinned(source, texts, marks, SIGNED)


def test_the_style_form_keeps_a_release_def_line_as_the_releases():
    assert _form("def step(h, q):\n    return h * q\n\ndef out(k):\n    return k + 1", SIGNED, "loose") == (
        "def step ( h , x ) : return V * V ⟩ def out ( h ) : return V + 1 ⟩")


@pytest.mark.parametrize(("source", "texts", "marks"), [
    # A temporary read once is inlined...
    ("x = 1\nreturn x", "return 1", {"temporaries": ["x"]}),
    ("t = x + 1\nfor i in w:\n    y = i\nreturn t * 2", "for i0 in w : v0 = i0 ⟩ return ( 1 + x ) * 2",
     {"names": ["i", "y", "i"], "temporaries": ["t"], "operand order": ["x + 1"]}),
    ("if c:\n    t = x + 1\n    y = t * 2\nelse:\n    t2 = w + 1\n    y = t2 * 2\nreturn y",
     "if c : v0 = ( 1 + x ) * 2 ⟩ else : v0 = ( 1 + w ) * 2 ⟩ return v0",
     {"names": ["y", "y", "y"], "temporaries": ["t2", "t"], "operand order": ["x + 1", "w + 1"]}),
    ("out = f(x)\nprint(out)\nanswer = out", "print ( g0 ( x ) )", {"names": ["f"], "temporaries": ["answer", "out"]}),
    # ...but not when what it reads is assigned on the way, when read in a loop, or when read before it.
    ("t = x + 1\nx = 5\nreturn t", "v0 = 1 + x x = 5 return v0", {"names": ["t", "t"], "operand order": ["x + 1"]}),
    ("t = x + 1\nfor i in w:\n    y = t * i\nreturn y", "v0 = 1 + x for i0 in w : v1 = i0 * v0 ⟩ return v1",
     {"names": ["t", "i", "y", "t", "i", "y"], "operand order": ["x + 1"]}),
    ("y = t\nt = x\nreturn y", "v0 = v1 v1 = x return v0", {"names": ["y", "t", "t", "y"]}),
])
def test_temporaries(source, texts, marks):
    _pinned(source, texts, marks)


@pytest.mark.parametrize(("source", "texts", "marks"), [
    # Independent statements sorted by their text with names aside (`V`, before a kept `W_hh`, after `print`).
    ("print(x)\ny = w\nreturn y * y", "v0 = w print ( x ) return v0 * v0",
     {"names": ["y", "y", "y"], "statement order": ["(1, 0)"]}),
    ("z = W_hh * 2\ny = g * 2\nreturn y @ z @ y @ z", "v0 = 2 * g0 v1 = 2 * W_hh return v0 @ v1 @ v0 @ v1",
     {"names": ["y", "g", "z", "y", "z", "y", "z"], "statement order": ["(1, 0)"],
      "operand order": ["g * 2", "W_hh * 2"]}),
    ("q = x + 1\np = w + 1\nr = c + 1\nreturn p * q * r * p * q * r",
     "v0 = 1 + c v1 = 1 + w v2 = 1 + x return v0 * v0 * v1 * v1 * v2 * v2",
     {"names": ["r", "p", "q", "p", "q", "r", "p", "q", "r"], "statement order": ["(2, 1, 0)"],
      "operand order": ["c + 1", "w + 1", "x + 1"]}),
    # A run after a compound statement is sorted on its own; the compound statement stays where it is.
    ("if c:\n    y = 1\nq = x + 1\np = w + 1\nreturn p * q * p * q",
     "if c : v0 = 1 ⟩ v1 = 1 + w v2 = 1 + x return v1 * v1 * v2 * v2",
     {"names": ["y", "p", "q", "p", "q", "p", "q"], "statement order": ["(1, 0)"],
      "operand order": ["w + 1", "x + 1"]}),
    ("p = w + 1\nif c:\n    y = 1\nr = x + 1\nq = c + 1\nreturn p * q * r * p * q * r * y",
     "v0 = 1 + w if c : v1 = 1 ⟩ v2 = 1 + c v3 = 1 + x return v0 * v0 * v1 * v2 * v2 * v3 * v3",
     {"names": ["p", "y", "q", "r", "p", "q", "r", "p", "q", "r", "y"], "statement order": ["(1, 0)"],
      "operand order": ["w + 1", "c + 1", "x + 1"]}),
    # A read after a write is never moved before it: of a name, of what a subscript or a method call writes.
    ("y = w * 2\nz = y + x\nreturn z * z", "v0 = 2 * w + x return v0 * v0",
     {"names": ["z", "z", "z"], "temporaries": ["y"], "operand order": ["w * 2"]}),
    ("a = x * 2\nb = x * 3\nc2 = a * b + a * b\nreturn c2 * c2 * a * b",
     "v0 = 2 * x v1 = 3 * x v2 = v0 * v1 + v0 * v1 return v0 * v1 * v2 * v2",
     {"names": ["a", "b", "c2", "a", "b", "a", "b", "c2", "c2", "a", "b"], "operand order": ["x * 2", "x * 3"]}),
    ("y = len(out)\nz = out.pop()\nreturn y * z * y * z", "v0 = len ( g0 ) v1 = g0 . pop ( ) return v0 * v0 * v1 * v1",
     {"names": ["y", "out", "z", "out", "y", "z", "y", "z"]}),
    ("out[0][1] = x\ny = len(out)\nreturn out * y * out * y",
     "g0 [ 0 ] [ 1 ] = x v0 = len ( g0 ) return g0 * g0 * v0 * v0",
     {"names": ["out", "y", "out", "out", "y", "out", "y"]}),
    # Augmented assignments of two names are independent of each other.
    ("a = 0\nb = 0\nb += x\na += w\nreturn a * b", "v0 = 0 v0 += w v1 = 0 v1 += x return v0 * v1",
     {"names": ["a", "a", "b", "b", "a", "b"], "statement order": ["(0, 3, 1, 2)"]}),
])
def test_statement_order(source, texts, marks):
    _pinned(source, texts, marks)


@pytest.mark.parametrize("source", [
    "return x + 'a'", "return x + list(w)", "return x + tuple(w)", "return x + str(w)", "return x + [w]",
    "return x + (w,)", "return x + [i for i in w]", "return x + f'{w}'",
])
def test_a_sequence_keeps_its_operands_order(source):
    assert _marks(source) == ({"names": ["i", "i"]} if " for " in source else {})
    assert _form(source).startswith("return x + ")


def test_commutative_operands_in_order():
    _pinned("return x * w + c", "return c + w * x", {"operand order": ["x * w", "w * x + c"]})
    _pinned("return x - w", "return x - w", {})


def _spans(source: str) -> list[tuple[str, int, int]]:
    """The answer's tokens, those of one span (the characters of the student's statement) joined."""
    found: list[list] = []
    for token in pf.program(source, KEPT).tokens:
        if found and found[-1][1:] == [token.start, token.end]:
            found[-1][0] += " " + token.text
        else:
            found.append([token.text, token.start, token.end])
    return [tuple(f) for f in found]


def test_each_token_spans_the_students_own_statement():
    # An indented region: the offsets are the source's. A header spans up to its body, or, when its body is
    # only what the normalisation put there (`pass`), the whole statement with the temporary inlined into it;
    # `else :`, `finally :` and the ends of blocks take the span before them.
    source = ("    t = x + 1\n    if c:\n        pass\n    else:\n        y = t * 2\n    try:\n        z = w('a')\n"
              "    except ValueError:\n        z = y\n    finally:\n        q = 1\n    return z")
    assert _spans(source) == [
        ("if c : pass ⟩ else : v0 = ( 1 + x ) * 2 ⟩", 8, 64), ("try :", 69, 82), ("v1 = w ( S ) ⟩", 82, 92),
        ("except ValueError :", 97, 124), ("v1 = v0 ⟩ finally :", 124, 129), ("v2 = 1 ⟩", 151, 156),
        ("return v1", 161, 169)]
    assert pf.program(source, KEPT).problem == ""
    # A statement ends where its code does, not where its line does (a comment after it is not its own).
    assert _spans("y = (w + x)  # c\nreturn y * y") == [("v0 = w + x", 0, 11), ("return v0 * v0", 17, 29)]


@pytest.mark.parametrize(("source", "spans", "problem"), [
    # The statements that parse on their own (an `else` goes with its `if`), then the others as text.
    ("y = w\nif c:\n    z = 1\nelse:\n    z = 2\nreturn (\nq = x\nreturn q +\nr = 1",
     [("v0 = w", 0, 5), ("if c :", 6, 16), ("v1 = 1 ⟩ else :", 16, 21), ("v1 = 2 ⟩", 32, 37), ("v2 = x", 47, 52),
      ("return 1", 64, 69), ("return", 38, 44), ("(", 45, 46), ("return", 53, 59), ("V", 60, 61), ("+", 62, 63)],
     "line 6: '(' was never closed"),
    ("else:\n    y = 1", [("else", 0, 4), (":", 4, 5), ("V", 10, 11), ("=", 12, 13), ("1", 14, 15)],
     "line 1: invalid syntax"),
    ("if c:\n    y = 1\nreturn (", [("if c :", 0, 10), ("v0 = 1 ⟩", 10, 15), ("return", 16, 22), ("(", 23, 24)],
     "line 3: '(' was never closed"),
    ("y = x\x00\nreturn y", [("return g0", 7, 15), ("V", 0, 1), ("=", 2, 3), ("x", 4, 5)],
     "source code string cannot contain null bytes"),
    ("  y = w\n\treturn y", [("V", 2, 3), ("=", 4, 5), ("w", 6, 7), ("return", 9, 15), ("V", 16, 17)],
     "line 1: unexpected indent"),  # indents sharing no prefix: nothing taken out
    ("\n", [], ""),
])
def test_an_answer_that_does_not_parse(source, spans, problem):
    assert _spans(source) == spans
    said = pf.program(source, KEPT).problem
    assert said == (f"does not parse ({problem}): compared on what parses, the rest on its text" if problem else "")


def _size(source: str) -> tuple[int, int]:
    tree = pf.ast.parse(source)
    count, deepest, stack = 0, 0, [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        count, deepest = count + 1, max(deepest, depth)
        stack.extend((child, depth + 1) for child in pf.ast.iter_child_nodes(node))
    return count, deepest


@pytest.mark.parametrize("bound", ["MAX_NODES", "MAX_DEPTH"])
def test_an_answer_at_a_bound_is_normalised_and_one_over_it_is_not(bound, monkeypatch):
    source = "y = (w + x) * c\nreturn y"
    nodes, depth = _size(source)
    monkeypatch.setattr(pf, bound, nodes if bound == "MAX_NODES" else depth)
    assert pf.program(source, KEPT).texts == ("return", "c", "*", "(", "w", "+", "x", ")")
    pf.program.cache_clear()
    monkeypatch.setattr(pf, bound, (nodes if bound == "MAX_NODES" else depth) - 1)
    assert "normalisation stopped at its bound" in pf.program(source, KEPT).problem


@pytest.mark.parametrize(("bound", "texts"), [
    (2, "v0 = 3 + x return 1 + 2 + v0 + w"),  # the first two temporaries inlined, the third left
    (200, "return 1 + 2 + 3 + w + x"),
])
def test_temporaries_inlined_up_to_their_bound(bound, texts, monkeypatch):
    monkeypatch.setattr(pf, "MAX_INLINED", bound)
    assert _form("a = 1 + w\nb = 2 + a\nd = 3 + x\nreturn b + d") == texts


@pytest.mark.parametrize(("source", "texts", "marks"), [
    # What the answer assigns last and never reads is the release's return; not in a function of its own.
    ("y = w + x", "return w + x", {"temporaries": ["y"]}),
    ("def helper(p):\n    global g\n    g = p\nreturn helper(x)", "def f0 ( a0 ) : global v0 v0 = a0 ⟩ return f0 ( x )",
     {"names": ["helper", "p", "g", "g", "p", "helper"]}),
    # A name read before is no alias of what the statement before wrote.
    ("a = w\nb = f(a)\na = b", "v0 = w v1 = g0 ( v0 ) v0 = v1", {"names": ["a", "b", "f", "a", "a", "b"]}),
    # Temporaries of a `finally` and of a handler are inlined in their own block.
    ("try:\n    y = w\nfinally:\n    t = x + 1\n    z = t * 2\nreturn z * z * y * y",
     "try : v0 = w ⟩ finally : v1 = ( 1 + x ) * 2 ⟩ return v0 * v0 * v1 * v1",
     {"names": ["y", "z", "z", "z", "y", "y"], "temporaries": ["t"], "operand order": ["x + 1"]}),
    ("try:\n    y = w\nexcept ValueError:\n    t = x + 1\n    y = t * 2\nreturn y * y",
     "try : v0 = w ⟩ except ValueError : v0 = ( 1 + x ) * 2 ⟩ return v0 * v0",
     {"names": ["y", "y", "y", "y"], "temporaries": ["t"], "operand order": ["x + 1"]}),
])
def test_the_last_assignment_and_blocks_of_their_own(source, texts, marks):
    _pinned(source, texts, marks)
