"""nbgrader's Assignments panel in JupyterLab, driven by Playwright as a student clicks it: open the panel, open a
fetched notebook, answer one cell, submit, fetch the feedback and read it. Used on a student's own JupyterLab
(test_watch_browser.py) and on their server behind the hub (test_hub_loop.py)."""

from typing import Any

ANSWER = "def concat_weights(w_hh, w_hx):\n    return np.hstack((w_hh, w_hx))\n"  # the answer to one exercise


def open_assignment_list(page: Any) -> tuple[Any, list[str]]:
    """The panel (`#nbgrader-assignment-list`), opened from the Nbgrader menu; the menu's items as seen."""
    page.wait_for_selector("#jp-main-dock-panel")
    page.get_by_text("Nbgrader", exact=True).click()
    page.get_by_text("Assignment List", exact=True).wait_for()
    menu = page.locator(".lm-Menu-itemLabel").all_inner_texts()
    page.get_by_text("Assignment List", exact=True).click()
    return page.locator("#nbgrader-assignment-list"), menu


def fetch(panel: Any, assignment: str) -> None:
    released = panel.locator("#released_assignments_list")
    released.get_by_text(assignment).wait_for()
    released.get_by_role("button", name="Fetch", exact=True).click()


def answer_and_save(page: Any, panel: Any, assignment: str, answer: str = ANSWER) -> None:
    """The fetched notebook opened from the panel, the `concat_weights` cell replaced by `answer`, saved."""
    fetched = panel.locator("#fetched_assignments_list")
    fetched.locator("a.assignment-notebooks-link", has_text=assignment).click()
    fetched.locator(".nested_list_item a", has_text=assignment).click()
    cell = page.locator(".jp-Notebook .jp-Cell", has_text="def concat_weights").first
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(answer)
    page.keyboard.press("Control+s")
    page.get_by_text("Saving completed").wait_for()


def submit(page: Any, panel: Any) -> Any:
    """Submit pressed in the panel; the submitted list (its Fetch Feedback button shown)."""
    page.locator(".lm-TabBar-tab", has_text="Assignments").click()
    panel.locator("#fetched_assignments_list").get_by_role("button", name="Submit", exact=True).click()
    submitted = panel.locator("#submitted_assignments_list")
    submitted.get_by_role("button", name="Fetch Feedback").wait_for()
    return submitted


def fetch_feedback(page: Any, submitted: Any, assignment: str) -> Any:
    """Fetch Feedback pressed (the submission graded already), the feedback page opened in JupyterLab's HTML
    viewer; its frame, once the exercise table is drawn."""
    submitted.get_by_role("button", name="Fetch Feedback").click()
    submitted.get_by_text("(view feedback)").click()
    page.locator(".jp-DirListing-item", has_text=f"{assignment}.html").dblclick()
    frame = page.frame_locator(".jp-HTMLViewer iframe")
    frame.locator("body").get_by_text("Your points, exercise by exercise").wait_for()
    return frame
