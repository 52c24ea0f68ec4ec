"""The class report's section on shared work (`autograder similarity`): each flagged pair with its evidence in
words and its answers side by side, the parts both wrote highlighted. It flags evidence; the page says that
it accuses nobody. Every text from a notebook is escaped: it is the students' own."""

from html import escape

from autograder.display.terminal import count
from autograder.similarity.evidence import Comparison, Pair, set_aside
from autograder.similarity.program_form import program
from autograder.similarity.winnowing import shared_spans

MAX_PAIRS = 60  # pairs shown in full; the CSV has them all
MAX_EXERCISES = 4  # exercises shown side by side a pair, the strongest code evidence first
MAX_CHARS = 4000  # of an answer shown

CSS = """
.pair { border: 1px solid #e4e7eb; border-radius: 8px; padding: 4px 14px 10px; margin: 14px 0; }
.pair h3 { font-size: 16px; margin: 8px 0 4px; }
.pair ul { margin: 4px 0 8px; padding-left: 20px; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; margin: 6px 0 10px; }
.side figure { margin: 0; min-width: 0; }
.side pre { margin: 2px 0 0; padding: 6px 8px; background: #f5f7fa; border: 1px solid #e4e7eb; border-radius: 4px;
            font-size: 12.5px; overflow-x: auto; max-height: 320px; }
.seen { margin: 8px 0 0; font-size: 13.5px; }
mark { background: #ffe08a; color: #1f2933; border-radius: 2px; }
"""


def _highlighted(text: str, other: str, names: frozenset[str]) -> str:
    text = text[:MAX_CHARS]
    out, last = [], 0
    for start, end in shared_spans(text, other[:MAX_CHARS], names):
        out.append(escape(text[last:start]) + "<mark>" + escape(text[start:end]) + "</mark>")
        last = end
    return "".join(out) + escape(text[last:])


def _side_by_side(pair: Pair, comparison: Comparison) -> str:
    a, b = comparison.works.get(pair.a), comparison.works.get(pair.b)
    if a is None or b is None:
        return ""
    exercises = [e.exercise for e in pair.evidence if e.kind == "code" and e.exercise][:MAX_EXERCISES]
    blocks = []
    for exercise in exercises:
        mine, theirs = a.answers.get(exercise, ""), b.answers.get(exercise, "")
        blocks.append(
            f'<p class="seen" data-seen-through="{escape(exercise)}">{escape(exercise)}: '
            f"{escape(_seen(mine, theirs, comparison))}</p>"
            f'<div class="side" data-exercise-pair="{escape(exercise)}">'
            + "".join(f"<figure><figcaption>{escape(who)}: <code>{escape(exercise)}</code></figcaption>"
                      f'<pre tabindex="0" aria-label="{escape(who)}\'s answer to {escape(exercise)}"><code>'
                      f"{_highlighted(text, other, comparison.names)}</code></pre></figure>"
                      for who, text, other in ((pair.a, mine, theirs), (pair.b, theirs, mine)))
            + "</div>")
    return "".join(blocks)


def _seen(mine: str, theirs: str, comparison: Comparison) -> str:
    """What the comparison saw through, in words: "the same program once parentheses and names are set
    aside", or which disguises it set aside before finding the parts highlighted."""
    aside = set_aside(mine, theirs, comparison.names)
    if program(mine, comparison.names).texts == program(theirs, comparison.names).texts:
        return "the same program " + ("as written" if aside == "as written" else aside) + "."
    listed = aside.removeprefix("once ").removesuffix(" set aside").removesuffix(" are").removesuffix(" is")
    return "not the same program; what both wrote is highlighted" + (
        "" if aside == "as written" else f" ({listed} set aside)") + "."


def section(comparison: Comparison | None, problem: str = "") -> str:
    head = ("<h2>Shared work (similarity)</h2>"
            '<p class="note" data-metric="similarity-caveat">This section flags evidence for you to look at; it '
            "accuses nobody. Students who work alone do write alike, above all in short exercises: each shared "
            "feature counts by how rare it is in this class (what a tenth of the class or more has counts for "
            "nothing), and a pair is listed when its evidence reaches the threshold. Talk to the students before "
            "drawing any conclusion.</p>")
    if comparison is None:
        return head + f'<p class="note" data-metric="similarity-unavailable">Not compared: {escape(problem)}</p>'
    head += (f'<p class="note">{comparison.compared} notebooks compared; threshold '
             f'<span data-metric="similarity-threshold">{comparison.threshold:g}</span> bits: log2 of the number of '
             "pairs in the class, about what chance alone gives the likeliest of that many pairs. Highlighted "
             "code: what both wrote, names, layout and comments aside. All pairs are in "
             f"<code>exports/similarity_{escape(comparison.assignment)}.csv</code> after "
             f"<code>autograder similarity {escape(comparison.assignment)}</code>.</p>")
    if comparison.refused:
        items = "".join(f"<li>{escape(line)}</li>" for line in comparison.refused)
        head += (f'<details><summary><span data-metric="similarity-left-out">{len(comparison.refused)}</span> '
                 f"notebooks left out of the comparison</summary><ul>{items}</ul></details>")
    if not comparison.pairs:
        return head + '<p class="ok" data-metric="similarity-pairs">No pair reaches the threshold.</p>'
    rings = [group for group in comparison.groups if len(group) > 2]
    pairs, groups = len(comparison.pairs), len(comparison.groups)
    head += (f'<p><span data-metric="similarity-pairs">{pairs}</span> {"pair" if pairs == 1 else "pairs"} in '
             f"{count(groups, 'group')} {'reaches' if pairs == 1 else 'reach'} the threshold.</p>")
    if rings:
        head += ("<p>Groups of three or more (each joined to another by a listed pair):</p><ul>"
                 + "".join(f'<li data-group="{escape(" ".join(g))}">{escape(", ".join(g))}</li>' for g in rings)
                 + "</ul>")
    shown = comparison.pairs[:MAX_PAIRS]
    blocks = []
    for pair in shown:
        evidence = "".join(f"<li>{escape(e.text)}</li>" for e in pair.evidence)
        blocks.append(
            f'<section class="pair" data-pair="{escape(pair.a)} {escape(pair.b)}" '
            f'aria-label="{escape(pair.a)} and {escape(pair.b)}">'
            f"<h3>{escape(pair.a)} and {escape(pair.b)}: score {pair.score:.1f} bits</h3>"
            f"<ul>{evidence}</ul>{_side_by_side(pair, comparison)}</section>")
    more = (f'<p class="note">{len(comparison.pairs) - MAX_PAIRS} more pairs are in the CSV.</p>'
            if len(comparison.pairs) > MAX_PAIRS else "")
    return head + "".join(blocks) + more
