"""The class report as one self-contained HTML page: inline CSS, charts as base64 PNG data URIs.

Nothing is fetched when the page opens, so it can be mailed, archived or opened offline. Every number
an instructor reads sits in an element with a `data-metric` attribute (inside rows marked with
`data-exercise`, `data-hint` or `data-student`), so a test can find the rendered value in a browser.
"""

import base64
import statistics
from datetime import datetime
from html import escape

from autograder.display.terminal import count, percent
from autograder.report import deadline_section, plots, similarity_section
from autograder.report.data import ClassData
from autograder.report.metric_markup import metric, points
from autograder.sandbox.isolation import BARE_WARNING

CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: #1f2933; margin: 0; background: #f5f7fa; }
main { max-width: 980px; margin: 0 auto; padding: 24px 28px 48px; background: #fff; }
h1 { font-size: 26px; margin: 0 0 2px; }
h2 { font-size: 19px; margin: 34px 0 8px; padding-bottom: 4px; border-bottom: 2px solid #e4e7eb; }
.sub, .note { color: #52606d; }
.note { font-size: 14px; margin: 4px 0 10px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(130px, 1fr)); gap: 12px;
         margin: 18px 0 4px; }
.card { border: 1px solid #e4e7eb; border-radius: 8px; padding: 10px 14px; }
.card .value { font-size: 24px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .label { color: #52606d; font-size: 13px; }
img { display: block; max-width: 100%; height: auto; margin: 8px 0; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; font-size: 14px; }
table.compact { width: auto; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid #e4e7eb; vertical-align: top; }
th { background: #f0f4f8; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tbody tr:nth-child(even) { background: #fafbfc; }
code { font-size: 13px; background: #f0f4f8; padding: 1px 4px; border-radius: 3px; }
.bad { color: #b42318; font-weight: 600; }
.ok { color: #146c2e; }
details summary { cursor: pointer; color: #2f5b8c; }
figure { margin: 8px 0; }
figcaption { font-size: 14px; color: #52606d; }
.wide { overflow-x: auto; max-width: 100%; }
.wide th.num { white-space: normal; }
"""


def _image(png: bytes, alt: str, name: str, numbers: str = "") -> str:
    """A chart with its text alternative: `alt` says what it shows and where its numbers are; `numbers`, when
    no table on the page holds them, is a table of them under the chart."""
    data = base64.b64encode(png).decode("ascii")
    caption = (f"<figcaption><details><summary>The chart's numbers</summary>{numbers}</details></figcaption>"
               if numbers else "")
    return (f'<figure><img data-chart="{name}" alt="{escape(alt)}" src="data:image/png;base64,{data}">'
            f"{caption}</figure>")


def _bins_table(found: list[plots.Bin], what: str, unit: str, places: int) -> str:
    rows = "".join(f'<tr><td class="num">{lo:.{places}f}–{hi:.{places}f}{unit}</td><td class="num">{n}</td></tr>'
                   for lo, hi, n in found if n)
    return (f'<table class="compact"><thead><tr><th class="num">from–to</th><th class="num">{escape(what)}</th>'
            f"</tr></thead><tbody>{rows}</tbody></table>")


def _seconds(value: float) -> str:
    """One precision for every time the page shows: a total is never rounded to 0.0 beside a mean of 0.04."""
    return f"{value:.2f} s" if value < 100 else f"{value:.0f} s"


def _card(name: str, value: str, label: str) -> str:
    return f'<div class="card">{metric(name, value, "div", "value")}<div class="label">{escape(label)}</div></div>'


def _headline(data: ClassData) -> str:
    full = sum(score >= data.max_score for score in data.scores)
    share = data.mean_score / data.max_score if data.max_score else 0.0
    return '<div class="cards">' + "".join([
        _card("roster", str(len(data.roster)), "students in the gradebook"),
        _card("submissions", str(len(data.submissions)), "students graded"),
        *([_card("waiting", str(len(data.waiting)), "submissions waiting to be graded")] if data.waiting else []),
        _card("blank", str(len(data.blank)), "handed in blank (nothing answered)"),
        _card("failed-attempts", str(len(data.failed_attempts)), "answered and scored 0"),
        _card("mean-score", points(data.mean_score), f"mean score of {data.max_score:g} ({percent(share)})"),
        _card("median-score", points(data.median_score), "median score"),
        _card("full-marks", str(full), "with full marks"),
        _card("not-submitted", str(len(data.not_submitted)), "did not submit"),
    ]) + "</div>"


def _scores_section(data: ClassData, charts: dict[str, bytes]) -> str:
    return (
        "<h2>Score distribution</h2>"
        f'<p class="note">Totals from the gradebook, out of {data.max_score:g} points; '
        "the dashed line is the mean.</p>"
        + _image(charts["scores"], f"Histogram of {count(len(data.submissions), 'total score')} out of "
                 f"{data.max_score:g}, mean {data.mean_score:.1f}; its numbers are in the table under it.", "scores",
                 _bins_table(plots.bins(data.scores, plots.score_edges(data.max_score)), "students", "", 1))
    )


def _exercise_section(data: ClassData, charts: dict[str, bytes]) -> str:
    rows = []
    for exercise in data.exercises:
        top = data.top_misconception(exercise)
        passed = round(data.pass_rate(exercise) * len(data.submissions))
        rows.append(
            f'<tr data-exercise="{escape(exercise.label)}"><td><code>{escape(exercise.label)}</code></td>'
            f'<td class="num">{exercise.max_score:g}</td>'
            + metric("exercise-mean", points(data.exercise_mean(exercise)), "td", "num")
            + metric("passed", str(passed), "td", "num")
            + metric("pass-rate", percent(data.pass_rate(exercise)), "td", "num")
            + (metric("self-check-failed", str(data.zero_because(exercise, "self-check failed")), "td", "num")
               + metric("unanswered", str(data.zero_because(exercise, "unanswered")), "td", "num")
               if data.with_results else '<td class="num">—</td><td class="num">—</td>')
            + (f'<td data-metric="top-misconception"><code>{escape(top[0])}</code> ({top[1]})</td></tr>'
               if top else "<td>—</td></tr>")
        )
    return (
        "<h2>Exercises</h2>"
        '<p class="note">An exercise is passed with full marks on its grade cell (gradebook scores). '
        "Self-check failures (the visible check in the grade cell raised on an answer, so the cell scores 0) "
        "and unanswered exercises (the released stub's NotImplementedError, in the exercise or in a function "
        "its check calls) come from the result files.</p>"
        + _image(charts["pass_rates"], "Bar chart: share of students with full marks per exercise; the pass rate "
                 "column of the table below holds its numbers.", "pass_rates")
        + '<table><thead><tr><th>exercise</th><th class="num">points</th><th class="num">mean</th>'
        '<th class="num">full marks</th><th class="num">pass rate</th><th class="num">self-check failed</th>'
        '<th class="num">unanswered</th><th>most common misconception</th>'
        "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def _coverage_note(data: ClassData) -> str:
    """Say whose submissions the misconception, limit and timing data cover, and whose it does not."""
    covered = len(data.with_results)
    note = (f"Each misconception is counted once per student. They come from the autograder's result files, "
            f"which {metric('with-results', str(covered))} of the {len(data.submissions)} students graded have")
    if data.attempts:
        note += (f", and from every graded attempt in the watcher's ledger "
                 f"({metric('attempts', count(data.attempts, 'attempt'))}): a mistake a student made and later "
                 "fixed still counts.")
    else:
        note += "."
    if data.cells_without_graders:
        note += (f" In {metric('cells-without-graders', str(data.cells_without_graders))} graded cells the "
                 "graders did not run (the self-check failed or the cell was stopped first), so a mistake "
                 "made there is not counted.")
    missing = data.without_results
    if missing:
        names = ", ".join(escape(s) for s in missing)
        note += (f" Misconception data is unavailable for {metric('without-results', str(len(missing)))} "
                 f"student{'s' if len(missing) != 1 else ''} graded without the autograder engine "
                 f"(e.g. by <code>nbgrader autograde</code>): <details><summary>who</summary>"
                 f'<span data-metric="without-results-names">{names}</span></details>')
    return f'<div class="note">{note}</div>'


def _misconception_section(data: ClassData, charts: dict[str, bytes]) -> str:
    head = "<h2>Misconceptions</h2>" + _coverage_note(data)
    if not data.misconceptions:
        return head + '<p data-metric="no-misconceptions">No misconception was named.</p>'
    covered = data.with_misconception_data
    rows = []
    for item in data.misconceptions:
        names = ", ".join(escape(s) for s in item.students)
        rows.append(
            f'<tr data-hint="{escape(item.hint)}"><td><code>{escape(item.hint)}</code></td>'
            + metric("students", str(len(item.students)), "td", "num")
            + f'<td class="num">{percent(len(item.students) / covered)}</td>'
            f"<td>{', '.join(escape(e) for e in item.exercises)}</td>"
            f"<td>{escape(item.text)}<details><summary>students</summary>{names}</details></td></tr>"
        )
    return (
        head
        + _image(charts["misconceptions"], "Bar chart: students per misconception; the students column of the table "
                 "below holds its numbers.", "misconceptions")
        + '<table><thead><tr><th>misconception</th><th class="num">students</th><th class="num">share</th>'
        "<th>exercises</th><th>hint the students read</th></tr></thead><tbody>" + "".join(rows)
        + "</tbody></table>"
    )


def _manual_section(data: ClassData, formgrader: str) -> str:
    head = "<h2>Waiting for manual grading</h2>"
    if not data.manual:
        return head + '<p class="ok" data-metric="no-manual">No grade cell is flagged for manual grading.</p>'
    rows = [f'<tr data-manual="{escape(cell.student)}"><td>{escape(cell.student)}</td>'
            f"<td><code>{escape(cell.exercise)}</code></td>"
            f'<td><a href="{escape(formgrader.rstrip("/"))}/submissions/{escape(cell.submission_notebook_id)}/">'
            "open in the formgrader</a></td></tr>" for cell in data.manual]
    students = len({cell.student for cell in data.manual})
    return (
        head + f'<p class="note">{metric("manual-cells", str(len(data.manual)))} grade cells of '
        f'{metric("manual-students", str(students))} student{"s" if students != 1 else ""} are flagged '
        "<code>needs_manual_grade</code> (an unreadable notebook, a manual score the autograder's now "
        "disagrees with, or an answer graded by hand): they count with their current score until a person "
        "grades them in the formgrader.</p>"
        "<table><thead><tr><th>student</th><th>exercise</th><th></th></tr></thead><tbody>"
        + "".join(rows) + "</tbody></table>"
    )


def _problem_section(data: ClassData) -> str:
    head = "<h2>Limits hit, unreadable submissions and files left out</h2>"
    if not data.problems:
        return head + ('<p class="ok" data-metric="no-problems">'
                       "Every submission with a result file was graded within its limits.</p>")
    rows = []
    for problem in data.problems:
        score = "not in gradebook" if problem.score is None else points(problem.score)
        rows.append(
            f'<tr data-student="{escape(problem.student)}"><td>{escape(problem.student)}</td>'
            f'<td class="{"bad" if problem.status != "graded" else ""}">{escape(problem.status)}</td>'
            f"<td>{escape(', '.join(problem.limits) or '—')}</td><td>{escape(problem.message or '—')}</td>"
            f'<td class="num">{escape(score)}</td></tr>'
        )
    return (
        head + f'<p class="note">{metric("problems", str(len(data.problems)))} '
        + ("submission needs" if len(data.problems) == 1 else "submissions need") + " a look.</p>"
        '<table><thead><tr><th>student</th><th>status</th><th>limits hit</th><th>message</th>'
        '<th class="num">score</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>"
    )


def _timing_section(data: ClassData, charts: dict[str, bytes]) -> str:
    head = "<h2>Grading time</h2>"
    if not data.seconds:
        return head + '<p class="note" data-metric="no-timing">No result files, so no timing.</p>'
    seconds = list(data.seconds.values())
    slowest = max(data.seconds, key=data.seconds.get)
    rows = [
        ("submissions timed", metric("timed", str(len(seconds)))),
        ("total (sum over submissions)", metric("total-seconds", _seconds(sum(seconds)))),
        ("mean per submission", metric("mean-seconds", _seconds(statistics.fmean(seconds)))),
        ("median per submission", metric("median-seconds", _seconds(statistics.median(seconds)))),
        ("slowest", f"{metric('max-seconds', _seconds(data.seconds[slowest]))} ({escape(slowest)})"),
    ]
    return (
        head + '<p class="note">Per-submission times from the result files; submissions graded in '
        "parallel take less wall-clock time than the total.</p>" + _label_table(rows)
        + _image(charts["seconds"], f"Histogram of grading time per submission ({count(len(seconds), 'submission')}"
                 "); its numbers are in the table under it.", "seconds",
                 _bins_table(plots.bins(seconds, plots.time_edges(seconds)), "submissions", " s", 2))
    )


def _label_table(rows: list[tuple[str, str]]) -> str:
    """A compact table of (label, value HTML) rows, a label heading each row."""
    return ('<table class="compact"><tbody>'
            + "".join(f"<tr><th>{label}</th><td>{value}</td></tr>" for label, value in rows) + "</tbody></table>")


def _ago(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _watcher_section(data: ClassData) -> str:
    """Whether `autograder watch` runs, and its queue as it last wrote it: what `autograder status` prints."""
    head = "<h2>Watcher</h2>"
    health = data.watch
    if health is None or health.status is None:
        state = "a watcher is starting" if health and health.running else (
            "No watcher has run in this course: these grades come from autograder grade.")
        return head + metric("watcher", state, "p", "note")
    status = health.status
    if health.running:
        flag = metric("watcher", f"Running (pid {status.pid}), last seen {_ago(health.age_seconds)} ago.", "p", "ok")
    else:
        flag = metric("watcher", f"No watcher running: the last one (pid {status.pid}) stopped or died; its last "
                       f"status is {_ago(health.age_seconds)} old. Students who submit now get no feedback until "
                       "autograder watch runs again.", "p", "bad")
    watched = "" if data.assignment in status.assignments else (
        f'<p class="note">The watcher does not watch {escape(data.assignment)}: it watches '
        f"{escape(', '.join(status.assignments))}.</p>")
    rows = [
        ("in the workers' hands", metric("watch-in-hand", str(len(status.in_hand)))),
        ("waiting", metric("watch-waiting", str(status.waiting))
         + f" (over the attempts limit {status.deferred}, to retry after a fault of ours {status.failed})"),
        ("longest wait since submitted", metric("watch-longest-wait", _ago(status.oldest_waiting_seconds))),
        ("graded since the ledger began", metric("watch-graded", str(status.graded))),
        ("refused", metric("watch-refused", str(status.refused))),
    ]
    so_far = "so far" if health.running else "by then"
    hands = "".join(f"<li>{escape(item.student)} ({escape(item.assignment)}): {_ago(item.seconds)} {so_far}</li>"
                    for item in sorted(status.in_hand, key=lambda i: -i.seconds)[:20])
    when = "" if health.running else '<p class="note">As the watcher last wrote it, before it stopped:</p>'
    return (head + flag + watched + when + _label_table(rows)
            + (f"<p>{'Being graded now' if health.running else 'Being graded when it stopped'}:</p><ul>{hands}</ul>"
               if hands else ""))


def _utc(iso: str) -> str:
    return f"{iso[:16].replace('T', ' ')} UTC" if iso else "—"


def _waiting_section(data: ClassData) -> str:
    """Submissions the watcher holds ungraded, from its ledger: their students' grades do not show them yet."""
    if not data.waiting:
        return ""
    why = {"deferred": "over the attempts limit", "failed": "a fault on the grader's side, retried"}
    rows = "".join(
        f'<tr data-student="{escape(w.student)}"><td>{escape(w.student)}</td><td>{_utc(w.submitted)}</td>'
        f"<td>{why.get(w.state, escape(w.state))}</td><td>{_utc(w.until)}</td><td>{escape(w.note) or '—'}</td></tr>"
        for w in data.waiting)
    return (
        "<h3>Waiting to be graded</h3>"
        f'<p class="note">{metric("waiting-submissions", count(len(data.waiting), "submission"))} of this '
        "assignment the watcher holds but has not graded (from its ledger): the scores above do not include "
        "them yet.</p>"
        '<table><thead><tr><th>student</th><th>submitted</th><th>why it waits</th><th>not before</th>'
        "<th>note</th></tr></thead><tbody>" + rows + "</tbody></table>"
    )


def _version_section(data: ClassData) -> str:
    """Which graders scored the class: one line per version, flagged when there are several or
    when some students were scored by graders other than the current ones."""
    head = "<h2>Grader versions</h2>"
    if not data.versions:
        return head + ('<p class="note" data-metric="no-versions">No grading run recorded in the audit trail '
                       "(graded before it existed, or by <code>nbgrader autograde</code>).</p>")
    counts: dict[str, int] = {}
    for version in data.versions.values():
        counts[version] = counts.get(version, 0) + 1
    rows = "".join(
        f'<tr data-version="{escape(version[:12])}"><td><code>{escape(version[:12])}</code>'
        f'{" (current)" if version == data.current_version else ""}</td>'
        + metric("version-students", str(n), "td", "num") + "</tr>"
        for version, n in sorted(counts.items(), key=lambda item: -item[1]))
    if data.mixed_versions:
        flag = metric("mixed-versions", f"Mixed: this class was scored by {len(counts)} different grader "
                       "versions.", "p", "bad")
    else:
        flag = metric("mixed-versions", "One grader version scored every student.", "p", "ok")
    stale = ""
    if data.stale:
        stale = (f'<p class="note">{metric("stale", str(len(data.stale)))} students were scored by graders '
                 "other than the current ones: <code>autograder regrade</code> grades them again.</p>")
    return (head + '<p class="note">A version is a hash of the graders and the instructor\'s files; the current '
            f"one is <code>{escape(data.current_version[:12])}</code>.</p>" + flag + stale
            + '<table class="compact"><thead><tr><th>graders</th><th class="num">students</th></tr></thead><tbody>'
            + rows + "</tbody></table>")


def _student_section(data: ClassData) -> str:
    # Long exercise names break at their underscores, so the table fits the page as far as it can; wider, it
    # scrolls in its own box (which a keyboard can focus and scroll), not the page.
    head = "".join(f'<th class="num">{escape(e.label).replace("_", "_<wbr>")}</th>' for e in data.exercises)
    rows = []
    for submission in data.submissions:
        known = submission.result or submission.student in data.attempted
        hints = ", ".join(data.hints_of(submission.student)) if known else "unavailable"
        version = data.versions.get(submission.student, "")[:12] or "—"
        cells = "".join(f'<td class="num">{points(submission.scores.get(e.label))}</td>' for e in data.exercises)
        left = ' <span class="bad">left the LMS course</span>' if submission.student in data.left_course else ""
        rows.append(
            f'<tr data-student="{escape(submission.student)}"><td>{escape(submission.student)}{left}</td>{cells}'
            + metric("total", points(submission.score), "td", "num") + f"<td>{escape(hints or '—')}</td>"
            + f"<td><code>{escape(version)}</code></td></tr>"
        )
    return (
        f"<h2>Every student</h2><details><summary>{count(len(data.submissions), 'submission')}</summary>"
        '<div class="wide" tabindex="0" role="region" aria-label="Every student\'s scores">'
        f'<table><thead><tr><th>student</th>{head}<th class="num">total</th><th>misconceptions (any attempt)</th>'
        "<th>graders</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table></div></details>"
    )


# Where the report links cells waiting for manual grading: a Jupyter server on this machine with nbgrader's
# formgrader (`autograder report --formgrader-url` for another, e.g. a JupyterHub's `.../user/NAME/formgrader`).
FORMGRADER = "http://localhost:8888/formgrader"


def _bare_warning(data: ClassData) -> str:
    """First on the page: scores from the bare sandbox are only as trustworthy as the students whose code made
    them (it could read the graders and solutions)."""
    if not data.bare:
        return ""
    return metric("bare-sandbox", f"{len(data.bare)} of {len(data.submissions)} students were graded at the bare "
                   f"sandbox level: {BARE_WARNING}.", "p", "bad")


def render(data: ClassData, charts: dict[str, bytes], generated: datetime, formgrader: str = FORMGRADER) -> str:
    """The page for `data`; `charts` holds the PNGs named scores, pass_rates, misconceptions, seconds."""
    title = f"Class report: {data.assignment}"
    course = f"course {escape(data.course_id)} · " if data.course_id else ""
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{escape(title)}</title>'
        f"<style>{CSS}{similarity_section.CSS}</style></head><body><main>"
        f"<h1>{escape(title)}</h1>"
        f'<p class="sub">{course}generated {generated:%Y-%m-%d %H:%M}</p>'
        + _bare_warning(data)
        + _headline(data)
        + _scores_section(data, charts)
        + _exercise_section(data, charts)
        + _misconception_section(data, charts)
        + _manual_section(data, formgrader)
        + _problem_section(data)
        + _timing_section(data, charts)
        + _watcher_section(data)
        + _waiting_section(data)
        + _version_section(data)
        + deadline_section.section(data)
        + deadline_section.left_section(data)
        + similarity_section.section(data.similarity, data.similarity_problem)
        + _student_section(data)
        + "</main></body></html>\n"
    )
