"""The grade-by-question page: one question, every answer in its group, the rubric with its keys.

Everything a student wrote (their answers, their ids) is escaped where it is put into the page, and the data the
page's script reads is JSON inside a `<script type="application/json">` with `<` written `\\u003c`, so no answer
ends that element; the script itself only ever sets `textContent`. The page is served with a Content-Security-Policy
that runs no script but its own (a nonce made per response) and loads nothing (`policy`).

Keys: `j` / `k` (or the arrows) move between groups; `1`-`9` give the focused group that rubric item, or take it
back when every answer of the group has it; the focus then moves to the next group nobody has graded. Each item
is also a button on each group, for a mouse or a screen reader.
"""

import html
import json
from collections.abc import Sequence
from urllib.parse import urlencode

from autograder.by_question.answer_groups import AnswerGroup
from autograder.by_question.regrade_requests import MAX_ANSWER, Request
from autograder.by_question.rubric import Question, RubricItem, StudentAnswer

MAX_VARIANTS_SHOWN = 5  # a group's distinct texts shown; the rest counted

CSS = """body { font: 16px/1.5 system-ui, sans-serif; color: #1f2933; margin: 0; }
main { max-width: 72em; padding: 1em 1.5em; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
.rubric { position: sticky; top: 0; background: #fff; border-bottom: 2px solid #9aa5b1; padding: .5em 0; z-index: 1;
  max-height: 40vh; overflow-y: auto; }
.rubric ol { margin: .3em 0; padding-left: 0; list-style: none; display: flex; flex-wrap: wrap; gap: .4em 1em; }
kbd { border: 1px solid #52606d; border-radius: 3px; padding: 0 .3em; font: inherit; }
section.group, section.variant-group { border: 1px solid #9aa5b1; border-left: 6px solid #9aa5b1; margin: .8em 0;
  padding: .4em .8em;
  scroll-margin-top: calc(40vh + 1em); }
section.group.graded { border-left-color: #1d7a3a; }
section.group:focus { outline: 3px solid #0b4f9c; outline-offset: 2px; }
.answer { white-space: pre-wrap; overflow-wrap: anywhere; background: #f5f7fa; padding: .3em .5em; margin: .3em 0; }
.meta { color: #3e4c59; font-size: .9em; }
button { font: inherit; margin: .1em; }
button[aria-pressed="true"] { background: #1d7a3a; color: #fff; border-color: #1d7a3a; }
#status { min-height: 1.5em; font-weight: 600; }
.conflict { color: #a3251a; }
form.item { display: flex; gap: .5em; align-items: center; flex-wrap: wrap; }
section.requests article { border: 1px solid #9aa5b1; border-left: 6px solid #b35c00; margin: .6em 0;
  padding: .4em .8em; }
section.requests article.answered { border-left-color: #1d7a3a; }
section.requests textarea { font: inherit; width: 100%; box-sizing: border-box; }
"""

SCRIPT = r"""(() => {
const data = JSON.parse(document.getElementById("question-data").textContent);
const groups = [...document.querySelectorAll("section.group")];
const status = document.getElementById("status");
const post = async (path, body) => {
  const reply = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json",
    "X-XSRFToken": data.xsrf}, body: JSON.stringify(body), credentials: "same-origin"});
  const answer = await reply.json();
  if (!reply.ok) { throw new Error(answer.error || reply.statusText); }
  return answer;
};
const say = (text, conflict) => { status.textContent = text; status.className = conflict ? "conflict" : ""; };
const progress = () => {
  const graded = Object.values(data.students).filter(s => s.items.length > 0).length;
  const shown = document.getElementById("progress");  // none on an autograded question's requests page
  if (shown) { shown.textContent = `${graded} of ${Object.keys(data.students).length} graded`; }
};
const show = group => {
  const students = JSON.parse(group.dataset.students);
  const given = new Set(data.items.map(i => i.id)
    .filter(id => students.every(s => data.students[s].items.includes(id))));
  group.querySelectorAll("button[data-item]")
    .forEach(b => b.setAttribute("aria-pressed", String(given.has(Number(b.dataset.item)))));
  group.classList.toggle("graded", students.every(s => data.students[s].items.length > 0));
};
const next = from => {
  const after = groups.slice(from + 1).concat(groups.slice(0, from + 1));
  return after.find(g => !g.classList.contains("graded")) || groups[Math.min(from + 1, groups.length - 1)];
};
const toggle = async (group, item) => {
  const students = JSON.parse(group.dataset.students);
  const all = students.every(s => data.students[s].items.includes(item.id));
  const seen = Object.fromEntries(students.map(s => [s, data.students[s].version]));
  try {
    const answer = await post(data.base + "apply" + data.query, {item: item.id, students: seen, given: !all});
    for (const [s, state] of Object.entries(answer.students)) { data.students[s] = state; }
    show(group); progress();
    say(`${all ? "Took back" : "Gave"} item ${item.position} ${all ? "from" : "to"} ${students.length} answer(s).`);
    if (!all) { next(groups.indexOf(group)).focus(); }
  } catch (error) { say(error.message + " Reload the page to see it.", true); }
};
groups.forEach((group, index) => {
  show(group);
  group.querySelectorAll("button[data-item]").forEach(b => b.addEventListener("click", () =>
    toggle(group, data.items.find(i => i.id === Number(b.dataset.item)))));
});
progress();
document.addEventListener("keydown", event => {
  if (event.target.closest("form") || event.ctrlKey || event.metaKey || event.altKey) { return; }
  const at = groups.indexOf(document.activeElement.closest ? document.activeElement.closest("section.group") : null);
  if (event.key === "j" || event.key === "ArrowDown") { groups[Math.min(at + 1, groups.length - 1)].focus(); }
  else if (event.key === "k" || event.key === "ArrowUp") { groups[Math.max(at - 1, 0)].focus(); }
  else if (/^[1-9]$/.test(event.key) && at >= 0) {
    const item = data.items.find(i => i.position === Number(event.key));
    if (item) { toggle(groups[at], item); }
  } else { return; }
  event.preventDefault();
});
document.querySelectorAll("form.item").forEach(form => form.addEventListener("submit", async event => {
  event.preventDefault();
  const fields = Object.fromEntries(new FormData(form));
  try {
    const answer = await post(data.base + form.dataset.path + data.query, fields);
    say(answer.said); window.location.reload();
  } catch (error) { say(error.message, true); }
}));
if (groups.length) { next(-1).focus(); }
})();"""


def policy(nonce: str) -> str:
    """The page's Content-Security-Policy: its own script and style only, requests to itself only."""
    return (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
            "form-action 'none'; base-uri 'none'; frame-ancestors 'none'")


def index_page(questions: Sequence[tuple[Question, float]], nonce: str,
               open_requests: dict[tuple[str, str, str], int] | None = None,
               autograded: Sequence[tuple[Question, float]] = (),
               progress: dict[tuple[str, str, str], tuple[int, int]] | None = None) -> str:
    """The service's first page: each question graded by hand (a grade cell that is also an answer cell), a link
    to its page, in the gradebook's order of assignments and notebooks, with how many of its answers are graded
    (`progress`: graded, submitted) and its open regrade requests; then the
    autograded exercises (`autograded`), each a link to the class's code grouped by named mistake and its
    requests."""
    e = html.escape
    waiting = dict(open_requests or {})

    def item(q: Question, points: float | None) -> str:
        key = (q.assignment, q.notebook, q.cell)
        count = waiting.pop(key, 0)
        asked = f", <strong>{count} open regrade request{'s' if count != 1 else ''}</strong>" if count else ""
        worth = f"{points:g} points, " if points is not None else ""
        done = (progress or {}).get(key)
        graded = f", {done[0]} of {done[1]} answers graded" if done else ""
        return (f'<li><a href="?{e(urlencode({"assignment": q.assignment, "notebook": q.notebook, "cell": q.cell}))}">'
                f"{e(q.assignment)}: {e(q.cell)}</a> ({worth}notebook {e(q.notebook)}{graded}{asked})</li>")

    rows = "".join(item(q, points) for q, points in questions)
    listed = f"<ul>{rows}</ul>" if rows else "<p>No assignment has a question graded by hand.</p>"
    known = {(q.assignment, q.notebook, q.cell) for q, _ in autograded}
    others = "".join(item(q, points) for q, points in autograded) + "".join(
        item(Question(*key), None) for key in sorted(waiting) if key not in known)
    if others:
        listed += ("<h2>Autograded exercises</h2><p>Each one's code, the whole class's, grouped by the mistake the "
                   "graders named, and its regrade requests. A new score given in an answer is an override of the "
                   f"graders' score, the request its reason.</p><ul>{others}</ul>")
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Grade by question</title>'
            f'<style nonce="{nonce}">{CSS}</style></head><body><main><h1>Grade by question</h1>'
            f"<p>Questions graded by hand in this course; open one to grade every student's answer to it and to "
            f"answer its regrade requests.</p>{listed}</main></body></html>")


def requests_section(requests: Sequence[Request], scores: dict[str, float | None], max_score: float) -> str:
    """A question's regrade requests: each open one with the student's score now, what they wrote and a form to
    answer it (a new score is an override, the request its reason); then the answered ones."""
    e = html.escape
    waiting = [r for r in requests if r.open]
    answered = [r for r in requests if not r.open]

    def score(student: str) -> str:
        found = scores.get(student)
        return "not graded yet" if found is None else f"{found:g} / {max_score:g}"

    forms = "".join(
        f'<article aria-labelledby="r{r.id}"><h3 id="r{r.id}">{e(r.student)}: now {score(r.student)} points'
        f'</h3><p class="meta">Asked {e(r.asked_at[:16])} UTC'
        f'{f", when the score was {r.score_asked:g}" if r.score_asked is not None else ""}:</p>'
        f'<div class="answer" lang="">{e(r.text)}</div>'
        f'<form class="item" data-path="requests/{r.id}"><label for="a{r.id}">Your answer to {e(r.student)}</label>'
        f'<textarea id="a{r.id}" name="answer" rows="2" maxlength="{MAX_ANSWER}" required></textarea>'
        f'<label>New score, 0 to {max_score:g} (empty: unchanged) <input name="score" size="5" inputmode="decimal">'
        f'</label><button type="submit">Answer {e(r.student)} and close</button></form></article>'
        for r in waiting)
    done = "".join(
        f'<article class="answered"><p class="meta">{e(r.student)} asked {e(r.asked_at[:16])} UTC; '
        f'{e(r.answered_by or "")} answered {e((r.answered_at or "")[:16])} UTC'
        f'{f", score {r.score_before:g} → {r.score_after:g} (an override)" if r.score_after is not None else ""}'
        f'</p><div class="answer" lang="">{e(r.text)}</div><div class="answer">{e(r.answer or "")}</div></article>'
        for r in answered)
    if not waiting and not answered:
        return ""
    return (f'<section class="requests" aria-labelledby="requests"><h2 id="requests">Regrade requests: '
            f"{len(waiting)} open</h2>{forms}"
            + (f"<details><summary>{len(answered)} answered</summary>{done}</details>" if answered else "")
            + "</section>")


def requests_page(question: Question, max_score: float, requests: Sequence[Request],
                  scores: dict[str, float | None], base: str, xsrf: str, nonce: str, user: str,
                  groups: Sequence[AnswerGroup] = ()) -> str:
    """An autograded question's page: its regrade requests, then the class's code grouped by the mistakes the
    graders named (`groups`), to read: its scores are its graders'."""
    return _document(question, base, xsrf, nonce, [], {},
                     f'<h1>{html.escape(question.assignment)}: {html.escape(question.cell)} ({max_score:g} points, '
                     f"autograded): regrade requests</h1><p>Answered as {html.escape(user)}. A new score is an "
                     f"override of the graders' score, recorded with the request as its reason.</p>"
                     f'<p id="status" role="status" aria-live="polite"></p>'
                     + (requests_section(requests, scores, max_score) or "<p>No regrade requests.</p>")
                     + code_groups_section(groups, scores, max_score))


def code_groups_section(groups: Sequence[AnswerGroup], scores: dict[str, float | None], max_score: float) -> str:
    """The class's code for an autograded exercise, a group per set of mistakes the graders named (then identical
    code among the answers with none), each with its students' scores: read to see what the class did. Changing
    a group's score is the graders' to do (their points, then `autograder regrade`), one student's an override."""
    if not groups:
        return ""
    e = html.escape
    sections = []
    for number, group in enumerate(groups, 1):
        shown = _variants(group, code=True)
        kind = ("the same mistake named: " + ", ".join(sorted(group.mistakes)) if group.kind == "mistake"
                else "no mistake named, identical code")
        got = sorted({scores[s] for s in group.students if scores.get(s) is not None})
        points = ("" if not got else f", {got[0]:g} / {max_score:g} points" if len(got) == 1
                  else f", {got[0]:g} to {got[-1]:g} / {max_score:g} points")
        sections.append(
            f'<section class="variant-group" aria-labelledby="c{number}">'
            f'<h3 id="c{number}">Group {number} of {len(groups)}: '
            f'{len(group.answers)} student{"s" if len(group.answers) != 1 else ""}, {e(kind)}{points}</h3>'
            f"{shown}</section>")
    return ('<section class="code" aria-labelledby="code"><h2 id="code">The class\'s code, by the mistake the '
            "graders named</h2><p>These scores are the graders'. To change every score of a group, change the "
            "graders' points for its mistake and run <code>autograder regrade</code> (its audit lists each change); "
            "to change one student's, answer their request or run <code>autograder override</code>.</p>"
            + "".join(sections) + "</section>")


def _document(question: Question, base: str, xsrf: str, nonce: str, items: Sequence[RubricItem],
              answers: dict[str, StudentAnswer], body: str, title_words: str = "regrade requests") -> str:
    e = html.escape
    query = "?" + urlencode({"assignment": question.assignment, "notebook": question.notebook, "cell": question.cell})
    data = {"base": base, "query": query, "xsrf": xsrf,
            "items": [{"id": i.id, "position": i.position, "points": i.points} for i in items],
            "students": {s: {"version": a.version, "items": sorted(a.items)} for s, a in answers.items()}}
    payload = json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    title = f"{question.assignment}: {question.cell}"
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{e(title)}: {title_words}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style nonce="{nonce}">{CSS}</style>'
        f'</head><body><main>{body}'
        f'</main><script type="application/json" id="question-data">{payload}</script>'
        f'<script nonce="{nonce}">{SCRIPT}</script></body></html>')


def question_page(question: Question, max_score: float, groups: Sequence[AnswerGroup], items: Sequence[RubricItem],
                  answers: dict[str, StudentAnswer], base: str, xsrf: str, nonce: str, user: str,
                  requests: str = "", overridden: frozenset[str] = frozenset()) -> str:
    """The page (module docstring). `base`: the service's URL prefix for its POSTs; `user`: the grader;
    `requests`: the question's regrade requests (`requests_section`), shown under the rubric; `overridden`: the
    students whose score is an override, which the rubric's items no longer change (said at their group)."""
    e = html.escape
    rubric = "".join(
        f'<li><kbd>{i.position}</kbd> <strong>{_points(i.points)}</strong> {e(i.comment)}</li>' for i in items)
    edit_forms = "".join(
        f'<form class="item" data-path="items/{i.id}"><input type="hidden" name="version" value="{i.version}">'
        f'<label>Item {i.position} points <input name="points" value="{i.points:g}" size="4"></label>'
        f'<label>comment <input name="comment" value="{e(i.comment)}" size="50"></label>'
        f'<button type="submit">Save item {i.position}</button></form>' for i in items)
    sections = []
    for number, group in enumerate(groups, 1):
        shown = _variants(group, code=False)
        kind = {"identical": "identical answers", "similar": "near-duplicate answers",
                "mistake": "the same mistake named: " + ", ".join(sorted(group.mistakes))}[group.kind]
        buttons = "".join(f'<button type="button" data-item="{i.id}" aria-pressed="false">'
                          f'{i.position}: {_points(i.points)}</button>' for i in items)
        students_json = e(json.dumps(list(group.students)))
        held = [s for s in group.students if s in overridden]
        held_note = (f'<p class="meta">Scored by an override (a regrade request\'s answer), not by these items: '
                     f'{e(", ".join(held))}</p>' if held else "")
        sections.append(
            f'<section class="group" tabindex="0" data-students="{students_json}" aria-labelledby="g{number}">'
            f'<h2 id="g{number}">Group {number} of {len(groups)}: {len(group.answers)} '
            f'student{"s" if len(group.answers) != 1 else ""}, {e(kind)}</h2>{shown}{held_note}'
            f'<div role="group" aria-label="Rubric items for group {number}">{buttons}</div></section>')
    title = f"{question.assignment}: {question.cell}"
    return _document(question, base, xsrf, nonce, items, answers, title_words="grade by question", body=(
        f'<div class="rubric"><h1>{e(title)} ({max_score:g} points): grade by question</h1>'
        f'<p><span id="progress"></span>. Graded as {e(user)}. <kbd>j</kbd>/<kbd>k</kbd> move between groups; '
        f'a number key gives the focused group that item (again: takes it back).</p>'
        f'<ol aria-label="Rubric">{rubric}</ol><p id="status" role="status" aria-live="polite"></p></div>'
        + requests
        + "".join(sections)
        + f'<details><summary>Edit the rubric (every answer given an item is scored again)</summary>{edit_forms}'
        f'<form class="item" data-path="items"><label>New item points <input name="points" size="4" required>'
        f'</label><label>comment the student reads <input name="comment" size="50" required></label>'
        f'<button type="submit">Add item</button></form></details>'))


def _variants(group: AnswerGroup, code: bool) -> str:
    """A group's distinct texts (the first `MAX_VARIANTS_SHOWN`, the most common first), each with who wrote it,
    escaped; code kept as laid out."""
    e = html.escape
    variants = group.variants
    shown = "".join((f'<pre class="answer" lang="">{e(text) or "(empty)"}</pre>' if code else
                     f'<div class="answer" lang="">{e(text) or "<em>(empty)</em>"}</div>')
                    + f'<p class="meta">{len(students)} answer{"s" if len(students) != 1 else ""}: '
                    f'{e(", ".join(students[:8]))}{" …" if len(students) > 8 else ""}</p>'
                    for text, students in variants[:MAX_VARIANTS_SHOWN])
    if len(variants) > MAX_VARIANTS_SHOWN:
        shown += (f'<p class="meta">and {len(variants) - MAX_VARIANTS_SHOWN} more '
                  f'{"texts" if code else "similar texts"}</p>')
    return shown


def _points(points: float) -> str:
    return f"{points:+g}" if points else "0"
