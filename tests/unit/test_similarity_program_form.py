"""Answers compared as programs (`similarity.program_form`, issue 43): each disguise a copier reaches for, on this
course's real answers (the catalogue's right and wrong ones), is seen through, and does not change what the
answer does; answers that do different things stay different; a hostile answer costs a bounded time and is
named; winnowing keeps what it must."""

import ast
import time

import pytest

from autograder.devtools import similarity_disguises as sd
from autograder.devtools.catalogue import correct_answers, wrong_answers
from autograder.devtools.repo import ROOT
from autograder.similarity import program_form
from autograder.similarity.code_tokens import MAX_TOKENS, Token
from autograder.similarity.evidence import set_aside
from autograder.similarity.notebook_work import answer_region
from autograder.similarity.numpy_spellings import one_form
from autograder.similarity.program_form import program
from autograder.similarity.winnowing import WINDOW, K, fingerprints, winnowed
from tests.unit.similarity_support import fresh_programs, released  # noqa: F401 - fresh_programs: autouse

ASSIGNMENTS = ("hidden_state_activation", "rnn_update_equations")
NAMES = {a: released(a)[1].names for a in ASSIGNMENTS}
HSA = NAMES["hidden_state_activation"]


def _answers(assignment: str, every: int = 1):
    return (correct_answers(assignment) + wrong_answers(assignment))[::every]


def _same(a: str, b: str, names: frozenset[str]) -> bool:
    return program(a, names).texts == program(b, names).texts


@pytest.mark.parametrize("how", [*sd.DISGUISES, "stacked"])
def test_each_disguise_of_a_real_answer_is_seen_through(how):
    changed = 0
    for assignment, every in (("hidden_state_activation", 1), ("rnn_update_equations", 1)):
        for answer in _answers(assignment, every):
            disguised = sd.disguised(how, answer.code)
            changed += disguised != answer.code
            assert _same(disguised, answer.code, NAMES[assignment]), (answer.label, disguised)
    assert changed >= 10  # the disguise did change the text of answers it applies to


def test_the_disguises_leave_the_program_as_it_was():
    # One answer of each exercise, each disguise: the graders' verdict is the original's, value for value.
    assignment = "hidden_state_activation"
    firsts = {}
    for answer in _answers(assignment):
        firsts.setdefault((answer.exercise, answer.label in {a.label for a in wrong_answers(assignment)}), answer)
    for answer in firsts.values():
        for how in [*sd.DISGUISES, "stacked"]:
            assert sd.same_behaviour(assignment, answer.exercise, answer.code, sd.disguised(how, answer.code)), (
                answer.label, how)


def test_a_disguise_that_changes_the_program_is_caught_by_the_check():
    answer = next(a for a in correct_answers("hidden_state_activation") if a.label == "formula_2/dot")
    swapped = answer.code.replace("np.dot(w_hh, h_t_prev)", "np.dot(w_hx, h_t_prev)")
    assert not sd.same_behaviour("hidden_state_activation", "formula_2", answer.code, swapped)


def test_answers_that_do_different_things_stay_different():
    # Every pair of answers to one exercise that the normalisation makes one program gets the same verdict from
    # the graders; and the merges are only those the table of NumPy spellings names.
    assignment = "hidden_state_activation"
    merged = []
    answers = _answers(assignment)
    for i, a in enumerate(answers):
        for b in answers[i + 1:]:
            if a.exercise == b.exercise and _same(a.code, b.code, HSA):
                assert sd.same_behaviour(assignment, a.exercise, a.code, b.code), (a.label, b.label)
                merged.append((a.label, b.label))
    assert len(merged) == 4  # hstack/concatenate, np.dot/np.matmul, vstack/axis-0, hstack/axis-1
    assert len({program(a.code, HSA).texts for a in answers}) == len(answers) - 4


@pytest.mark.parametrize(("a", "b"), [
    ("return w_hh @ h_t_prev + w_hx @ x_t", "return w_hh @ x_t + w_hx @ h_t_prev"),  # the assignment's names swapped
    ("def formula_2(w_hh, w_hx, h_t_prev, x_t):\n    return w_hh @ h_t_prev", "return w_hx @ h_t_prev"),
    ("return np.hstack((w_hh, w_hx))", "return np.vstack((w_hh, w_hx))"),  # attribute names are not names
    ("return np.hstack((w_hh, w_hx))", "return np.hstack((w_hx, w_hh))"),
    ("return [h_t_prev] + [x_t]", "return [x_t] + [h_t_prev]"),  # a sequence's + is not commutative
    ("return w_hh - w_hx", "return w_hx - w_hh"),
    ("return w_hh @ w_hx", "return w_hx @ w_hh"),
    ("a = w_hh\nb = w_hx\nreturn a @ b", "a = w_hh\nb = w_hx\nreturn b @ a"),
    ("y = x_t + 1\nreturn y * y", "y = x_t + 1\nz = x_t + 1\nreturn y * z"),
    ("return np.concatenate((w_hh, w_hx), axis=0)", "return np.concatenate((w_hh, w_hx), axis=1)"),
    ("return 1 / (1 + np.exp(-z))", "return 1 / (1 + np.exp(z))"),
])
def test_programs_that_differ_stay_different(a, b):
    assert not _same(a, b, HSA)


@pytest.mark.parametrize(("a", "b"), [
    ("return np.clip(w_hh, a_min=0, a_max=1)", "return np.clip(w_hh, a_max=1, a_min=0)"),  # keyword order
    ("return np.sum(w_hh, 1)", "return np.sum(w_hh, axis=1)"),
    ("import numpy as xp\nreturn xp.tanh(w_hh)", "import numpy as np\nreturn np.tanh(w_hh)"),
    ("return w_hh.dot(x_t)", "return np.matmul(w_hh, x_t)"),
    ("return np.transpose(w_hh)", "return w_hh.T"),
    ("if True:\n    y = w_hh\nelse:\n    y = w_hx\nreturn y", "return w_hh"),
    ("return x_t * 2.0 + w_hh", "return w_hh + 2 * x_t"),
    ("a = np.tanh(x_t)\nb = np.exp(x_t)\nreturn a + b", "b = np.exp(x_t)\na = np.tanh(x_t)\nreturn b + a"),
])
def test_spellings_of_one_program_are_one(a, b):
    assert _same(a, b, HSA)


def _style(code: str, names: frozenset[str] = HSA, loose: bool = True) -> tuple[str, ...]:
    return program(code, names, style=True, loose=loose).texts


@pytest.mark.parametrize("how", ["extracted", "keywords", "parenthesised", "padded", "documented"])
def test_the_style_form_sets_aside_what_no_style_keeps(how):
    # A temporary and `axis` by position are no style a copier keeps (issue 43: extracted copies were 0 of 7
    # found while the style form kept them): every real answer so disguised has its original's loose style form.
    changed = 0
    for answer in _answers("hidden_state_activation"):
        disguised = sd.disguised(how, answer.code)
        changed += disguised != answer.code
        assert _style(disguised) == _style(answer.code), (answer.label, disguised)
    assert changed >= 5


@pytest.mark.parametrize(("a", "b"), [
    ("return np.dot(w_hh, x_t)", "return w_hh @ x_t"),  # a NumPy spelling is a style honest students keep
    ("return np.matmul(w_hh, x_t)", "return np.dot(w_hh, x_t)"),
    ("return 1.0 / (1 + np.exp(-z))", "return 1 / (1 + np.exp(-z))"),
    ("return np.hstack((w_hh, w_hx))", "return np.hstack([w_hh, w_hx])"),
    ("return w_hh + w_hx", "return w_hx + w_hh"),
    ("return np.concatenate((w_hh, w_hx), 1)", "return np.concatenate((w_hh, w_hx), 0)"),
])
def test_the_style_form_keeps_a_style(a, b):
    assert _style(a) != _style(b)
    assert _style(a, loose=False) != _style(b, loose=False)


@pytest.mark.parametrize(("a", "b"), [
    ("return np.sum(w_hh, 1)", "return np.sum(w_hh, axis=1)"),
    ("return np.concatenate((w_hh, w_hx), 1)", "return np.concatenate((w_hh, w_hx), axis=1)"),
    ("t = w_hh @ x_t\nreturn t + w_hx", "return w_hh @ x_t + w_hx"),
    ("out = np.tanh(x_t)\nresult = out", "out = np.tanh(x_t)"),  # an alias last: the release's return
])
def test_the_style_form_sets_aside_axis_by_position_and_temporaries(a, b):
    assert _style(a) == _style(b)
    assert _style(a, loose=False) != _style(b, loose=False)  # only loosely: a temporary is a habit


def test_an_alias_assigned_last_is_the_releases_return():
    # The release's `return stacked` is not in the answer region, so `... out[n:] = x_t` and the same with
    # `stacked = out` after it return one thing; an alias read later, or a value that is no name, is kept.
    body = "n = h_t_prev.shape[0]\nout = np.empty((5, 2))\nout[:n] = h_t_prev\nout[n:] = x_t"
    assert _same(body, body + "\nstacked = out", HSA)
    assert not _same(body, body + "\nstacked = out\nprint(stacked)", HSA)
    assert not _same(body, body + "\nstacked = out.T", HSA)
    assert not _same("a = w_hh\nb = w_hx", "a = w_hh", HSA)  # an alias of what was not written last
    filled = "out = np.zeros((2, 2))\nfor i in range(2):\n    out[i, i] = 1"  # what a loop fills, named after it
    assert _same(filled, filled + "\nmy_answer = out", HSA)
    assert not _same(filled, filled + "\nmy_answer = w_hh", HSA)


def test_a_renamed_def_line_is_read_with_the_releases_names():
    body = "    return np.dot(w_hh, h_t_prev) + np.dot(w_hx, x_t)"
    renamed = "def formula_2(a, b, c, d):\n    return np.dot(a, c) + np.dot(b, d)"
    assert _same(body, renamed, HSA)
    swapped = "def formula_2(b, a, c, d):\n    return np.dot(a, c) + np.dot(b, d)"  # parameters swapped: not so
    assert not _same(body, swapped, HSA)
    # The answer region of a cell whose def line was renamed keeps that line; of one whose def line is the
    # release's, not.
    released = "def formula_2(w_hh, w_hx, h_t_prev, x_t):\n    raise NotImplementedError()\n    return product"
    assert answer_region(renamed, released, HSA).startswith("def formula_2(a, b, c, d):")
    assert answer_region("def formula_2(w_hh, w_hx, h_t_prev, x_t):\n" + body, released, HSA) == body


def test_an_answer_that_does_not_parse_is_compared_on_what_parses_and_named():
    text = "    q = w_hh @ h_t_prev\n    y = np.hstack((q, x_t)\n    return np.tanh(q)"
    found = program(text, HSA)
    assert found.problem.startswith("does not parse (line 2: '(' was never closed)")
    assert "\n" not in found.problem
    # What parses is normalised (the temporary inlined: the line that does not parse is not read); the rest is
    # its text, names as V.
    texts = " ".join(found.texts)
    assert texts == "return np . tanh ( w_hh @ h_t_prev ) V = np . hstack ( ( V , x_t )"
    assert program("    return w_hh @ x_t", HSA).problem == ""


@pytest.mark.parametrize(("text", "bound"), [
    ("x = 1 + 2 * 3\n" * 8000, f"{MAX_TOKENS} tokens"),
    ("x = [" + "1, " * 1200 + "]\n" * 1 + "y = x\n" * 300, f"{program_form.MAX_NODES} syntax nodes"),
    ("y = " + "-" * 150 + "1", f"nested deeper than {program_form.MAX_DEPTH}"),
])
def test_a_hostile_answer_stops_at_a_bound_and_says_so(text, bound, monkeypatch):
    monkeypatch.setattr(program_form, "MAX_NODES", 2000)  # the same code path, at a size a test affords
    started = time.process_time()
    found = program.__wrapped__(text, HSA)
    assert time.process_time() - started < 1.0
    assert found.problem.startswith("normalisation stopped at its bound (") and bound.split()[-1] in found.problem
    assert 0 < len(found.tokens) <= MAX_TOKENS


def test_the_bounds_hold_at_their_real_values():
    started = time.process_time()
    found = program.__wrapped__("x = w_hh + 1\n" * 800, HSA)  # 4800 tokens, 6400 syntax nodes: under the bounds
    assert found.problem == "" and len(found.tokens) <= MAX_TOKENS
    assert time.process_time() - started < 3.0
    assert program.__wrapped__("(" * 300 + ")" * 300, HSA).problem.startswith("does not parse")


def test_winnowing_keeps_the_rightmost_smallest_of_every_window_and_the_last():
    source = "a = 1\nb = 2\n" * 6 + "c = a + b\nreturn np.tanh(c @ w_hh)"  # repeated k-grams: equal hashes
    tokens = list(program(source, HSA).tokens)
    grams = winnowed(tokens, winnow=False)
    assert len(grams) == len(tokens) - K + 1
    chosen = winnowed(tokens)
    kept = {(f.value, f.start, f.end) for f in chosen}
    for i in range(len(grams) - WINDOW + 1):
        window = grams[i:i + WINDOW]
        smallest = min(g.value for g in window)
        rightmost = max(j for j, g in enumerate(window) if g.value == smallest)
        assert (window[rightmost].value, window[rightmost].start, window[rightmost].end) in kept, i
    assert len(chosen) == len({(f.value, f.start) for f in chosen})  # no fingerprint twice in a row
    assert fingerprints("x", HSA) and len(fingerprints("return x", HSA)) == 1  # a short answer still counts


def _tokens(texts: list[str]) -> list[Token]:
    return [Token(text, i, i + 1) for i, text in enumerate(texts)]


def test_winnowing_takes_the_rightmost_of_equal_smallest_hashes():
    # Period 3: k-grams 0 and 3 are equal. Texts chosen so that this k-gram is the smallest of the three:
    # the first window's fingerprint is the one at 3, not at 0 (Schleimer et al.'s robust winnowing).
    for n in range(200):
        texts = [f"a{n}", f"b{n}", f"c{n}"] * 4
        grams = winnowed(_tokens(texts), winnow=False)
        if grams[0].value < min(grams[1].value, grams[2].value):
            break
    chosen = winnowed(_tokens(texts))
    assert chosen[0].start == 3 and all(f.start != 0 for f in chosen)


def test_winnowing_keeps_a_smallest_hash_of_the_last_window_alone():
    # Texts chosen so that the last k-gram has the smallest hash of all: only the last window holds it.
    for n in range(500):
        texts = [f"t{n}-{i}" for i in range(12)]
        grams = winnowed(_tokens(texts), winnow=False)
        if grams[-1].value < min(g.value for g in grams[:-1]):
            break
    assert winnowed(_tokens(texts))[-1] == grams[-1]


def test_the_evidence_says_which_disguises_were_seen_through():
    original = "    z = np.dot(w_hh, h_t_prev)\n    return z + b_h"
    copy = "    # mine\n    my_z = ((w_hh) @ (h_t_prev))\n    pass\n    return (b_h + my_z)"
    assert _same(original, copy, HSA)
    said = set_aside(original, copy, HSA)
    assert said.startswith("once ") and said.endswith(" are set aside")
    for disguise in ("comments", "parentheses", "pass statements", "NumPy spellings", "temporaries", "operand order"):
        assert disguise in said
    assert set_aside(original, original, HSA) == "as written"


def test_the_table_of_numpy_spellings_is_the_documented_one():
    from autograder.similarity.numpy_spellings import TABLE
    page = (ROOT / "docs" / "instructors" / "integrity.md").read_text()
    for spellings, form in TABLE:
        assert f"| {spellings} | {form} |" in page.replace("`", "")


@pytest.mark.parametrize(("mine", "theirs", "said"), [
    ("    return w_hh @ x_t", "    return (w_hh @ x_t)", "once parentheses are set aside"),
    ("    return w_hh @ x_t", "    return w_hh @  x_t", "once layout is set aside"),
    ("    return w_hh @ x_t", "    return w_hh @ x_t#mine", "once comments are set aside"),
    ("    return w_hh @ x_t", "    return np.dot(w_hh,  x_t)", "once NumPy spellings are set aside"),
    ("    return w_hh * 2", "    return w_hh * 2.0", "once numbers are set aside"),
    ("    return w_hh @ x_t", "    return (w_hh @ x_t)#mine", "once comments and parentheses are set aside"),
    ("    return w_hh @ x_t", "    return (w_hh @ x_t)  # mine", "once layout, comments and parentheses are set aside"),
])
def test_the_disguises_seen_through_in_words(mine, theirs, said):
    # One disguise "is" set aside unless its name is a plural; two or more, listed with "and", "are".
    assert set_aside(mine, theirs, HSA) == said


@pytest.mark.parametrize(("call", "form"), [
    ("np.dot(a, b)", "a @ b"), ("np.matmul(a, b)", "a @ b"), ("a.dot(b)", "a @ b"),
    ("np.add(a, b)", "a + b"), ("np.subtract(a, b)", "a - b"), ("np.multiply(a, b)", "a * b"),
    ("np.divide(a, b)", "a / b"), ("np.true_divide(a, b)", "a / b"), ("np.power(a, b)", "a ** b"),
    ("np.hstack((a, b))", "np.concatenate([a, b], axis=1)"),
    ("np.column_stack([a, b])", "np.concatenate([a, b], axis=1)"),
    ("np.vstack((a, b))", "np.concatenate([a, b], axis=0)"),
    ("np.row_stack([a, b])", "np.concatenate([a, b], axis=0)"),
    ("np.concatenate((a, b))", "np.concatenate([a, b], axis=0)"),
    ("np.concatenate((a, b), 1)", "np.concatenate([a, b], axis=1)"),
    ("np.concatenate((a, b), axis=1, out=o)", "np.concatenate([a, b], axis=1, out=o)"),
    ("np.hstack(parts)", "np.concatenate(parts, axis=1)"),
    ("np.transpose(a)", "a.T"),
    ("np.sum(a, 1)", "np.sum(a, axis=1)"), ("np.argmax(a, 0)", "np.argmax(a, axis=0)"),
    ("np.sum(a, 1, keepdims=True)", "np.sum(a, axis=1, keepdims=True)"),
])
def test_each_spelling_has_its_one_form(call, form):
    assert ast.unparse(one_form(ast.parse(call, mode="eval").body)) == form


@pytest.mark.parametrize("call", ["np.dot(a, b, out=o)", "np.hstack((a, b), axis=0)", "np.hstack(*parts)",
                                  "np.concatenate()", "np.sum(a, axis=1)", "np.sum(*a)", "np.c_[a, b]",
                                  "np.einsum('ij,jk', a, b)", "a.dot(b, c)", "np.dot(a)", "np.transpose(a, (1, 0))",
                                  "xp.dot(a, b)", "np.dot.x(a, b)"])
def test_what_the_table_does_not_name_is_left_as_written(call):
    node = ast.parse(call, mode="eval").body
    assert not isinstance(node, ast.Call) or one_form(node) is None


def test_a_hostile_cell_costs_bounded_tokens_time_and_memory():
    # A cell as long as the reader keeps (MAX_CELL_CHARS): 20,000 names added up. Each form stops at MAX_TOKENS,
    # in well under 2 CPU-s for all four (measured 0.4 s) and under 32 MB traced (measured 4 MB).
    import tracemalloc

    from autograder.similarity.notebook_work import MAX_CELL_CHARS
    text = ("x = " + " + ".join(["w_hh"] * 20_000))[:MAX_CELL_CHARS]
    assert len(text) == MAX_CELL_CHARS
    started = time.process_time()
    for form in program_form.FORMS:
        assert 0 < len(program_form.answer_tokens(text, HSA, form)) <= MAX_TOKENS
        assert 0 < len(fingerprints(text, HSA, form=form)) <= MAX_TOKENS
    assert time.process_time() - started < 2.0
    program.cache_clear()
    tracemalloc.start()
    try:
        found = program(text, HSA)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found.problem == f"normalisation stopped at its bound ({MAX_TOKENS} tokens): compared on its text"
    assert peak < 32 * 2**20


def test_tokens_by_hand():
    from autograder.similarity.code_tokens import STRING, lexemes, tokens
    source = "x = np.hstack('ab')  # a note\nlen(x)"
    assert [(t.text, t.start, t.end) for t in tokens(source, frozenset({"np"}), offset=100)] == [
        ("V", 100, 101), ("=", 102, 103), ("np", 104, 106), (".", 106, 107), ("hstack", 107, 113),
        ("(", 113, 114), (STRING, 114, 118), (")", 118, 119), ("len", 130, 133), ("(", 133, 134), ("V", 134, 135),
        (")", 135, 136)]
    # A name first, after nothing: renamed (no "previous" attribute dot); a comment only: nothing.
    assert [t.text for t in tokens("hstack")] == ["V"] and tokens("# only a note") == []
    assert [kind for kind, *_ in lexemes("a # b")] == ["name", "comment"]


def test_winnowing_of_short_answers_by_hand():
    def toks(texts: str) -> list[Token]:
        return [Token(t, 10 * i, 10 * i + 3) for i, t in enumerate(texts.split())]
    # Fewer than K tokens: one fingerprint of them all, spanning them all.
    (one,) = winnowed(toks("a b c d"))
    assert (one.start, one.end) == (0, 33) and one.value != winnowed(toks("a b c e"))[0].value
    # Exactly K tokens: one k-gram; K + WINDOW - 1 tokens: WINDOW k-grams, the smallest kept.
    assert len(winnowed(toks("a b c d e"))) == 1 and (winnowed(toks("a b c d e"))[0].end) == 43
    grams = winnowed(toks("a b c d e f g h"), winnow=False)
    assert len(grams) == WINDOW == 4 and winnowed(toks("a b c d e f g h")) == [min(grams, key=lambda g: g.value)]
    assert winnowed([]) == []
    # Every k-gram, unwinnowed, is what shared_spans highlights: a shared run shows whole, not its winnowed parts.
    from autograder.similarity.winnowing import shared_spans
    mine = "    h = np.tanh(w_hh @ h_t_prev + w_hx @ x_t + b_h)\n    return h"
    assert shared_spans(mine, mine, HSA) == [(mine.index("np."), len(mine))]  # `h` inlined: from its value


def test_two_release_functions_in_one_cell_are_each_compared():
    # Bodies run one after the other, the second would be dead code behind the first's `return`, and a cell
    # whose second function differs would pass for the same; each function's temporaries are its own.
    names = NAMES["rnn_update_equations"]
    cell = ("def stack_params(W_xh, W_hh):\n    return np.hstack((W_hh, W_xh))\n\n"
            "def stack_inputs(x_t, h_prev):\n    return np.vstack((h_prev, x_t))\n")
    other = cell.replace("np.vstack((h_prev, x_t))", "np.vstack((x_t, h_prev))")
    assert not _same(cell, other, names)
    extracted = cell.replace("return np.hstack((W_hh, W_xh))", "out = np.hstack((W_hh, W_xh))\n    return out")
    extracted = extracted.replace("return np.vstack((h_prev, x_t))", "out = np.vstack((h_prev, x_t))\n    return out")
    assert _same(cell, extracted, names)


def test_a_statement_over_several_lines_is_the_students_whole():
    # `z)` alone is the release's tokens; kept with the line that opened the bracket, it is the same program as
    # the statement on one line.
    released = ('def sigmoid(z):\n    """The logistic sigmoid."""\n    ### START CODE HERE ###\n'
                '    raise NotImplementedError()\n    ### END CODE HERE ###\n    return s')
    spread = "def sigmoid(z):\n    return np.tanh(\n        z\n    )"
    one = "def sigmoid(z):\n    return np.tanh(z)"
    assert answer_region(spread, released, HSA) == "    return np.tanh(\n        z\n    )"
    assert _same(answer_region(spread, released, HSA), answer_region(one, released, HSA), HSA)
    continued = "def sigmoid(z):\n    s = 1 / \\\n        (1 + np.exp(-z))\n    return s"
    assert answer_region(continued, released, HSA).split("\n")[:2] == ["    s = 1 / \\", "        (1 + np.exp(-z))"]


@pytest.mark.parametrize("wrapped, bare", [
    ("h = (phi)((np).dot((W_xh), (x_t)) + (b_h))", "h = phi(np.dot(W_xh, x_t) + b_h)"),
    ("m = np.c_[(a_0), (a_1)]", "m = np.c_[a_0, a_1]"),
    ("return (1) + (z)", "return 1 + z"),
])
def test_the_text_form_sets_aside_parentheses_around_a_name(wrapped, bare):
    # Two copiers of different sources who both wrap every name: the text form alone still saw them as one.
    texts = [[t.text for t in program_form.answer_tokens(s, HSA, "text")] for s in (wrapped, bare)]
    assert texts[0] == texts[1]


@pytest.mark.parametrize("call, grouped", [
    ("y = f(x)", "y = f x"), ("y = g()(x)", "y = g() x"), ("y = a[0](x)", "y = a[0] x"), ("y = (x, z)", "y = x, z"),
])
def test_the_text_form_keeps_a_call_and_a_tuple(call, grouped):
    texts = [[t.text for t in program_form.answer_tokens(s, HSA, "text")] for s in (call, grouped)]
    assert "(" in texts[0] and texts[0] != texts[1]
