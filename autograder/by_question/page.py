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
from autograder.by_question.rubric import Question, RubricItem, StudentAnswer

MAX_VARIANTS_SHOWN = 5  # a group's distinct texts shown; the rest counted

CSS = """body { font: 16px/1.5 system-ui, sans-serif; color: #1f2933; margin: 0; }
main { max-width: 72em; padding: 1em 1.5em; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
.rubric { position: sticky; top: 0; background: #fff; border-bottom: 2px solid #9aa5b1; padding: .5em 0; z-index: 1; }
.rubric ol { margin: .3em 0; padding-left: 0; list-style: none; display: flex; flex-wrap: wrap; gap: .4em 1em; }
kbd { border: 1px solid #52606d; border-radius: 3px; padding: 0 .3em; font: inherit; }
section.group { border: 1px solid #9aa5b1; border-left: 6px solid #9aa5b1; margin: .8em 0; padding: .4em .8em;
  scroll-margin-top: 16em; }
section.group.graded { border-left-color: #1d7a3a; }
section.group:focus { outline: 3px solid #0b4f9c; outline-offset: 2px; }
.answer { white-space: pre-wrap; overflow-wrap: anywhere; background: #f5f7fa; padding: .3em .5em; margin: .3em 0; }
.meta { color: #3e4c59; font-size: .9em; }
button { font: inherit; margin: .1em; }
button[aria-pressed="true"] { background: #1d7a3a; color: #fff; border-color: #1d7a3a; }
#status { min-height: 1.5em; font-weight: 600; }
.conflict { color: #a3251a; }
form.item { display: flex; gap: .5em; align-items: center; flex-wrap: wrap; }
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
  document.getElementById("progress").textContent = `${graded} of ${Object.keys(data.students).length} graded`;
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


def index_page(questions: Sequence[tuple[Question, float]], nonce: str) -> str:
    """The service's first page: each question graded by hand (a grade cell that is also an answer cell), a link
    to its page, in the gradebook's order of assignments and notebooks."""
    e = html.escape
    rows = "".join(
        f'<li><a href="?{e(urlencode({"assignment": q.assignment, "notebook": q.notebook, "cell": q.cell}))}">'
        f"{e(q.assignment)}: {e(q.cell)}</a> ({points:g} points, notebook {e(q.notebook)})</li>"
        for q, points in questions)
    listed = f"<ul>{rows}</ul>" if rows else "<p>No assignment has a question graded by hand.</p>"
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Grade by question</title>'
            f'<style nonce="{nonce}">{CSS}</style></head><body><main><h1>Grade by question</h1>'
            f"<p>Questions graded by hand in this course; open one to grade every student's answer to it.</p>"
            f"{listed}</main></body></html>")


def question_page(question: Question, max_score: float, groups: Sequence[AnswerGroup], items: Sequence[RubricItem],
                  answers: dict[str, StudentAnswer], base: str, xsrf: str, nonce: str, user: str) -> str:
    """The page (module docstring). `base`: the service's URL prefix for its POSTs; `user`: the grader."""
    e = html.escape
    query = "?" + urlencode({"assignment": question.assignment, "notebook": question.notebook, "cell": question.cell})
    data = {"base": base, "query": query, "xsrf": xsrf,
            "items": [{"id": i.id, "position": i.position, "points": i.points} for i in items],
            "students": {s: {"version": a.version, "items": sorted(a.items)} for s, a in answers.items()}}
    rubric = "".join(
        f'<li><kbd>{i.position}</kbd> <strong>{_points(i.points)}</strong> {e(i.comment)}</li>' for i in items)
    edit_forms = "".join(
        f'<form class="item" data-path="items/{i.id}"><input type="hidden" name="version" value="{i.version}">'
        f'<label>Item {i.position} points <input name="points" value="{i.points:g}" size="4"></label>'
        f'<label>comment <input name="comment" value="{e(i.comment)}" size="50"></label>'
        f'<button type="submit">Save item {i.position}</button></form>' for i in items)
    sections = []
    for number, group in enumerate(groups, 1):
        variants = group.variants
        shown = "".join(f'<div class="answer" lang="">{e(text) or "<em>(empty)</em>"}</div>'
                        f'<p class="meta">{len(students)} answer{"s" if len(students) != 1 else ""}: '
                        f'{e(", ".join(students[:8]))}{" …" if len(students) > 8 else ""}</p>'
                        for text, students in variants[:MAX_VARIANTS_SHOWN])
        more = (f'<p class="meta">and {len(variants) - MAX_VARIANTS_SHOWN} more similar texts</p>'
                if len(variants) > MAX_VARIANTS_SHOWN else "")
        kind = {"identical": "identical answers", "similar": "near-duplicate answers",
                "mistake": "the same mistake named: " + ", ".join(sorted(group.mistakes))}[group.kind]
        buttons = "".join(f'<button type="button" data-item="{i.id}" aria-pressed="false">'
                          f'{i.position}: {_points(i.points)}</button>' for i in items)
        students_json = e(json.dumps(list(group.students)))
        sections.append(
            f'<section class="group" tabindex="0" data-students="{students_json}" aria-labelledby="g{number}">'
            f'<h2 id="g{number}">Group {number} of {len(groups)}: {len(group.answers)} '
            f'student{"s" if len(group.answers) != 1 else ""}, {e(kind)}</h2>{shown}{more}'
            f'<div role="group" aria-label="Rubric items for group {number}">{buttons}</div></section>')
    payload = json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    title = f"{question.assignment}: {question.cell}"
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{e(title)}: grade by question</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style nonce="{nonce}">{CSS}</style>'
        f'</head><body><main><div class="rubric"><h1>{e(title)} ({max_score:g} points): grade by question</h1>'
        f'<p><span id="progress"></span>. Graded as {e(user)}. <kbd>j</kbd>/<kbd>k</kbd> move between groups; '
        f'a number key gives the focused group that item (again: takes it back).</p>'
        f'<ol aria-label="Rubric">{rubric}</ol><p id="status" role="status" aria-live="polite"></p></div>'
        + "".join(sections)
        + f'<details><summary>Edit the rubric (every answer given an item is scored again)</summary>{edit_forms}'
        f'<form class="item" data-path="items"><label>New item points <input name="points" size="4" required>'
        f'</label><label>comment the student reads <input name="comment" size="50" required></label>'
        f'<button type="submit">Add item</button></form></details>'
        f'</main><script type="application/json" id="question-data">{payload}</script>'
        f'<script nonce="{nonce}">{SCRIPT}</script></body></html>')


def _points(points: float) -> str:
    return f"{points:+g}" if points else "0"
