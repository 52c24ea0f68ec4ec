"""The documentation's pictures: a demo course built as `make demo` builds it (a smaller class), then a student's
feedback page and the class report rendered in Debian's Chromium and saved as PNGs in `docs/_static/`.

    .venv/bin/python -m autograder.devtools.doc_screenshots [--students 40] [--keep DIR]
    .venv/bin/python -m autograder.devtools.doc_screenshots --from demo    # a course `make demo` built already

Run it again when the feedback page or the report changes, look at the pictures, and commit them: the docs
build reads the committed files and never runs this. Pages are opened offline (only file:// requests are
allowed), as a student's or instructor's browser would read them without a network.
"""

import argparse
import sys
import tempfile
from pathlib import Path

from autograder.devtools import demo
from autograder.devtools.catalogue.classroom import plan_class
from autograder.devtools.repo import ROOT

STATIC = ROOT / "docs" / "_static"
ASSIGNMENT = "hidden_state_activation"
CHROMIUM = "/usr/bin/chromium"  # Debian's: Playwright never downloads a browser here
# Wide enough for the feedback page's points table and a grade cell's checks; each picture is cut to one
# screen's height of what matters, so that it stays small (a few hundred KB at most) and readable in a page.
VIEWPORT = {"width": 1100, "height": 1400}
POINTS_HEIGHT = 430  # the feedback page's title and its table of points per exercise
EXPLAINED_HEIGHT = 740  # one exercise: the answer, the cell's score and why, the checks, the one failure explained
BUDGET_BYTES = 250_000


def student_with_a_named_mistake(students: int) -> tuple[str, str]:
    """The first student of the demo class who made one known mistake, and the exercise it is in: their page
    shows an explained failure, its hint and a counterexample, beside exercises at full marks."""
    return next((s.student, s.answers[0].exercise) for s in plan_class(ASSIGNMENT, students)
                if s.kind == "mistake" and len(s.answers) == 1)


def offline(context) -> None:
    def only_files(route) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            route.abort()

    context.route("**/*", only_files)


def shoot(page, url: str, out: Path, height: int = VIEWPORT["height"], heading_for: str | None = None) -> None:
    """`url` rendered at VIEWPORT's width and saved to `out`, `height` pixels of it; with `heading_for` (an
    exercise), from a little above the heading of that exercise instead of from the top of the page."""
    page.goto(url)
    top = 0
    if heading_for:
        top = page.evaluate("""exercise => {
            const heading = [...document.querySelectorAll("h2[id], h3[id], h4[id]")]
                .find(h => h.id.endsWith(":-" + exercise));
            return heading.getBoundingClientRect().top + window.scrollY - 20;
        }""", heading_for)
    page.screenshot(path=str(out), clip={"x": 0, "y": top, "width": VIEWPORT["width"], "height": height},
                    full_page=True)
    size = out.stat().st_size
    print(f"wrote {out.relative_to(ROOT)} ({size // 1000} KB)")
    if size > BUDGET_BYTES:
        raise SystemExit(f"doc_screenshots: {out.name} is {size // 1000} KB, over the {BUDGET_BYTES // 1000} KB "
                         f"a picture in the docs may take")


def run(students: int, course: Path, build: bool = True) -> int:
    from playwright.sync_api import sync_playwright

    if build and demo.run(students, course) != 0:
        return 1
    student, exercise = student_with_a_named_mistake(students)
    feedback = course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"
    report = course / "reports" / f"{ASSIGNMENT}.html"
    STATIC.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            context = browser.new_context(viewport=VIEWPORT)
            offline(context)
            page = context.new_page()
            shoot(page, feedback.as_uri(), STATIC / "feedback-page.png", POINTS_HEIGHT)
            shoot(page, feedback.as_uri(), STATIC / "feedback-explained.png", EXPLAINED_HEIGHT, exercise)
            shoot(page, report.as_uri(), STATIC / "class-report.png")
        finally:
            browser.close()
    print(f"the feedback page is {student}'s ({exercise}); look at the pictures before committing them")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=40, help="class size (40: no adversarial student, ~3 min)")
    parser.add_argument("--keep", type=Path, help="build the demo course here and keep it (default: a scratch folder)")
    parser.add_argument("--from", dest="built", type=Path,
                        help="a demo course built already (`make demo` leaves one in demo/): only the pictures")
    args = parser.parse_args()
    if args.built:
        return run(len(list((args.built / "submitted").iterdir())), args.built.resolve(), build=False)
    if args.keep:
        return run(args.students, args.keep.resolve())
    with tempfile.TemporaryDirectory(prefix="doc-screenshots-") as scratch:
        return run(args.students, Path(scratch) / "course")


if __name__ == "__main__":
    sys.exit(main())
