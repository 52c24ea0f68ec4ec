"""`autograder push --status ASSIGNMENT`: what the outbox sent, holds and failed to send, and why."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from autograder.display.terminal import cell
from autograder.grades.outbox import FAILED, PENDING, SENT, OutboxRow
from autograder.grades.points import fmt

_STYLE = {SENT: "green", PENDING: "yellow", FAILED: "red"}


def counts(rows: dict[str, OutboxRow]) -> dict[str, int]:
    found = {SENT: 0, PENDING: 0, FAILED: 0}
    for row in rows.values():
        found[row.state] = found.get(row.state, 0) + 1
    return found


def status_table(assignment: str, rows: dict[str, OutboxRow], superseded: int) -> Table:
    """One line per student: the newest score queued for them and where it is. `superseded`: how many older
    scores were replaced by a newer one before they were sent (never sent: an older score never follows)."""
    found = counts(rows)
    title = (f"{assignment}: {found[SENT]} sent, {found[PENDING]} pending, {found[FAILED]} failed; "
             f"{superseded} older score(s) replaced before sending")
    table = Table(title=cell(title), box=box.SIMPLE, title_justify="left", show_edge=False, pad_edge=False)
    for name in ("student", "state", "score", "changed at (UTC)", "tries", "why / next try (UTC)", "comment"):
        table.add_column(name, no_wrap=name not in ("why / next try (UTC)", "comment"))
    order = {FAILED: 0, PENDING: 1, SENT: 2}
    for row in sorted(rows.values(), key=lambda r: (order.get(r.state, 3), r.student)):
        if row.state == SENT:
            why = f"sent {row.sent_at[:19]}" if row.sent_at else "sent"
        elif row.state == PENDING:
            why = (f"{row.last_error}; next try {row.next_try_at[:19]}" if row.last_error
                   else f"next try {(row.next_try_at or '')[:19]}")
        else:
            why = row.last_error or ""
        table.add_row(cell(row.student), Text(row.state, style=_STYLE.get(row.state, "")),
                      f"{fmt(row.score)}/{fmt(row.max_score)}", row.created_at[:19], str(row.attempts),
                      cell(why), cell(row.comment))
    return table
