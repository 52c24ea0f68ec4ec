"""What one student's notebook says about how it was made, as features to compare across the class.

A submitted notebook is hostile input: it is read bounded in size (`course.submitted.read_bytes`), a notebook
with more cells than a person makes is refused, and every text is cut before it is tokenised, so one file
costs a bounded time and memory whatever it holds. Only what a student could not have learned from the
release is kept: the lines they wrote in each answer region (the release's own lines, starter code included,
taken out), the ids of cells they created (not the release's), their execution counts, their cells' outputs
(not the grade cells', which every student with the same answer sees in their feedback) and markdown lines
that are not the release's.
"""

import ast
import bisect
import difflib
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from autograder.nbgrader_glue.notebook import grade_id, is_grade, is_solution
from autograder.similarity.code_tokens import lexemes, tokens
from autograder.similarity.program_form import signature, signatures

MAX_CELLS = 5000  # the releases have 31 and 46; more is a generated file, refused with a message
MAX_CELL_CHARS = 100_000  # of a cell's source or one output's text that is read
MAX_FEATURES = 500  # created ids, outputs or markdown lines kept of one notebook
MIN_MARKDOWN_CHARS = 20  # shorter markdown lines ("Answer:", "yes") are what anyone writes


_DEFINED = re.compile(r"^[ \t]*(?:def|class)[ \t]+(\w+)|^[ \t]*(?:from[ \t]+\S+[ \t]+)?import[ \t]+(\w+)"
                      r"(?:[ \t]+as[ \t]+(\w+))?", re.M)


class NotebookRefused(Exception):
    """A notebook left out of the comparison; the message is one line naming the file and why."""


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8).hexdigest()


def plain(text: str) -> str:
    """Text as compared: lower case, runs of white space as one space."""
    return " ".join(text.lower().split())


@dataclass
class ReleasedNotebook:
    """What the release gives every student in one notebook, so that none of it counts as shared work."""

    name: str
    cell_ids: set[str]
    solutions: dict[str, str]  # a solution cell's grade_id -> its released source (stub and starter code)
    by_id: dict[str, str]  # a solution cell's cell id -> its grade_id, for a cell whose metadata was removed
    markdown: set[str]  # every line of the release's markdown, `plain`
    names: frozenset[str]  # the functions and modules the release's code defines or imports, and the parameters
    # of the functions its solution cells define (with their signatures, `program_form.signature`): kept by the
    # normalisation (a call of `formula_1` is not a call of `sigmoid`, `w_hh @ x_t` is not `w_hx @ x_t`); a def
    # line whose parameters a student renamed is read with the release's names, so renaming changes nothing

    @classmethod
    def from_cells(cls, name: str, cells: list[dict[str, Any]]) -> "ReleasedNotebook":
        ids = {c["id"] for c in cells if isinstance(c.get("id"), str)}
        solutions = {grade_id(c): c["source"] for c in cells if is_solution(c) and grade_id(c)}
        by_id = {c["id"]: grade_id(c) for c in cells if is_solution(c) and grade_id(c) and isinstance(c.get("id"), str)}
        markdown = {plain(line) for c in cells if c["cell_type"] == "markdown" for line in c["source"].splitlines()}
        code = "\n".join(c["source"] for c in cells if c["cell_type"] == "code")
        names = {name for pair in _DEFINED.findall(code) for name in pair if name}
        for source in solutions.values():
            names |= _contract(source)
        return cls(name, ids, solutions, by_id, markdown, frozenset(names))


def _contract(source: str) -> set[str]:
    """The parameters of the functions a released solution cell defines, and their signatures: the names the
    exercise fixes."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()  # a release cell that does not parse: its names are the regular expression's
    found = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            parameters = [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
            found |= {*parameters, signature(node.name, parameters)}
    return found


@dataclass
class StudentWork:
    """One student's features. Keys are prefixed with the notebook's name when an assignment has several."""

    student: str
    answers: dict[str, str] = field(default_factory=dict)  # exercise -> the lines they wrote in its answer region
    created_ids: dict[str, str] = field(default_factory=dict)  # id of a cell they created -> the cell's first line
    executions: dict[str, str] = field(default_factory=dict)  # notebook -> its code cells' execution counts
    outputs: dict[str, str] = field(default_factory=dict)  # digest of an output -> its first line
    markdown: dict[str, str] = field(default_factory=dict)  # digest of a markdown line not the release's -> it
    wrong: dict[str, str] = field(default_factory=dict)  # exercise -> digest of what the graders said was wrong


_DEF_LINE = re.compile(r"^[ \t]*def[ \t]+(\w+)[ \t]*\(([^()\n]*)\)", re.M)


def answer_region(written: str, released: str, names: frozenset[str] = frozenset()) -> str:
    """The lines of `written` holding what the student typed into the cell: its tokens (`code_tokens.tokens`,
    the names the release defines kept, every other name, parameters included, one placeholder, and layout
    aside) are matched against the released cell's, and a line is kept when it holds a token the release does
    not have there, parentheses aside. So a def line split over two lines is still the release's, and so are
    the docstring and starter code; what follows the release's own `return` is dead code, left out; a def line
    of a release function whose parameters were renamed is kept, so that the comparison reads its body with
    the release's names (`program_form`)."""
    text = written[:MAX_CELL_CHARS]
    contract = signatures(names)
    defined = frozenset(n for n in names if n in contract or not _is_parameter(n, contract))
    # Parentheses aside: `return (w_h)` is still the release's `return w_h` (a copier's parentheses would
    # otherwise bring the release's starter lines into the answer).
    mine = [t for t in tokens(text, defined) if t.text not in "()"]
    theirs = [t for t in tokens(released, defined) if t.text not in "()"]
    matcher = difflib.SequenceMatcher(None, [t.text for t in theirs], [t.text for t in mine], autojunk=False)
    starts = [0] + [match.end() for match in re.finditer("\n", text)]
    lines = {bisect.bisect_right(starts, token.start) - 1 for tag, _, _, j1, j2 in matcher.get_opcodes()
             if tag in ("insert", "replace") for token in mine[j1:j2]}
    text_lines = text.split("\n")
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        # Lines after the release's own `return` (kept by the student), as deep as it: dead code, not theirs.
        for k in range(j1, j2) if tag == "equal" else []:
            if mine[k].text != "return":
                continue
            at = bisect.bisect_right(starts, mine[k].start) - 1
            if any(bisect.bisect_right(starts, t.start) - 1 == at for t in mine[:j1] + mine[j2:]):
                continue  # a `return` of the student's own, or the release's changed
            depth = _depth(text_lines[at])
            after = at + 1
            while after < len(text_lines) and (not text_lines[after].strip() or _depth(text_lines[after]) >= depth):
                lines.discard(after)
                after += 1
    for match in _DEF_LINE.finditer(text):
        given = [p.split("=")[0].split(":")[0].strip() for p in match[2].split(",") if p.strip()]
        if match[1] in contract and given != contract[match[1]][:len(given)]:
            lines.add(bisect.bisect_right(starts, match.start()) - 1)
    # A statement is the student's whole, or not at all: `return np.tanh(` kept and its `z)` (the release's tokens)
    # left out would compare a statement cut in two, and a copier who spreads a line over three is another program.
    for statement in _statements(text, starts):
        if lines & statement:
            lines |= statement
    return "\n".join(text[starts[i]:starts[i + 1] if i + 1 < len(starts) else len(text)].rstrip("\n")
                     for i in sorted(lines))


def _statements(text: str, starts: list[int]) -> list[set[int]]:
    """The lines of each statement spread over more than one (brackets left open, or a line ending in `\\`)."""
    spread: list[set[int]] = []
    depth, first, last = 0, None, -1
    for kind, token, start, _ in lexemes(text):
        if kind == "comment":
            continue
        line = bisect.bisect_right(starts, start) - 1
        if line != last:  # a new line: a statement of its own unless a bracket or a `\` carries the last one on
            if depth == 0 and not (line > 0 and text[starts[line - 1]:starts[line]].rstrip().endswith("\\")):
                first = line
            elif first is not None:
                if not spread or first not in spread[-1]:
                    spread.append(set(range(first, last + 1)))
                spread[-1].update(range(last + 1, line + 1))  # only the lines new since: a hostile cell of one
                # statement over 30,000 lines costs them once, not once each
            last = line
        if kind == "op":
            depth = max(0, depth + (token in "([{") - (token in ")]}"))
    return spread


def _depth(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _is_parameter(name: str, contract: dict[str, list[str]]) -> bool:
    return "(" in name or any(name in parameters for parameters in contract.values())


def _output_text(output: Any) -> str:
    """An output as text: streams and plain data as written, images and other data by their bytes, errors by
    name and message. Nothing in it is trusted to have a type."""
    if not isinstance(output, dict):
        return ""
    parts = []
    for key in ("text", "ename", "evalue"):
        value = output.get(key)
        parts.append("".join(value) if isinstance(value, list) else value if isinstance(value, str) else "")
    data = output.get("data")
    if isinstance(data, dict):
        for mime in sorted(k for k in data if isinstance(k, str)):
            value = data[mime]
            parts.append(mime + ":" + ("".join(map(str, value)) if isinstance(value, list) else str(value)))
    return "".join(parts)[:MAX_CELL_CHARS]


def first_line(text: str, width: int = 60) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= width else line[:width - 1] + "…"


def notebook_features(work: StudentWork, nb: dict[str, Any], release: ReleasedNotebook, prefix: str) -> None:
    """Add what notebook `nb` (read by `grading.reading.read_fast`) holds to `work`; NotebookRefused for a
    notebook too large to be a person's."""
    cells = nb["cells"]
    if len(cells) > MAX_CELLS:
        raise NotebookRefused(f"{release.name}.ipynb: {len(cells)} cells (at most {MAX_CELLS} are compared)")
    counts = []
    for cell in cells:
        cell_id = cell.get("id") if isinstance(cell.get("id"), str) else None
        gid = grade_id(cell) if is_solution(cell) else release.by_id.get(cell_id or "")
        source = cell["source"][:MAX_CELL_CHARS]
        if gid in release.solutions:
            work.answers.setdefault(prefix + gid, answer_region(source, release.solutions[gid], release.names))
        elif cell_id and cell_id not in release.cell_ids and len(work.created_ids) < MAX_FEATURES:
            work.created_ids[prefix + cell_id] = first_line(source) or f"an empty {cell['cell_type']} cell"
        if cell["cell_type"] == "markdown":
            for line in source.splitlines():
                text = plain(line)
                if (len(text) >= MIN_MARKDOWN_CHARS and text not in release.markdown
                        and len(work.markdown) < MAX_FEATURES):
                    work.markdown[digest(text)] = first_line(line)
        if cell["cell_type"] != "code":
            continue
        count = cell.get("execution_count")
        counts.append(str(count) if isinstance(count, int) and not isinstance(count, bool) else "-")
        outputs = cell.get("outputs")
        if is_grade(cell) or not isinstance(outputs, list):
            continue  # a grade cell's output is the self-check's: every student with that answer sees it
        for output in outputs[:MAX_FEATURES]:
            text = _output_text(output)
            if text.strip() and len(work.outputs) < MAX_FEATURES:
                work.outputs[digest(plain(text))] = first_line(text)
    if any(count != "-" for count in counts):
        work.executions[prefix or release.name] = " ".join(counts)

