"""The documentation site (docs/): `make docs`'s build, with warnings as errors and every internal reference
checked, and every "Try it" block run as a reader would run it (docs/contributors/docs.md says how blocks are
marked). The blocks that stand for the demo course share one scratch course, graded once."""

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder.devtools.catalogue import wrong_answers
from autograder.devtools.demo_lms_step import demo_step, roster_step
from autograder.devtools.repo import ROOT
from tests.axe import serious_violations
from tests.browser import CHROMIUM, CHROMIUM_FLAGS, offline
from tests.grading_course import ASSIGNMENT, grade, make_course, submit
from tests.test_course_defaults import docs_config

DOCS = ROOT / "docs"
BIN = Path(sys.executable).parent
# A block: ```{code-block} LANGUAGE, its :option: lines, a blank line, the body, the closing fence; indented alike
# inside a list item.
BLOCK = re.compile(r"^(?P<indent> *)```\{code-block\} (?P<language>\S+)\n(?P<options>(?:(?P=indent):[\w-]+:[^\n]*\n)*)"
                   r"\n?(?P<body>.*?)^(?P=indent)```$", re.M | re.S)
# Any fence, to find commands shown outside a code-block.
FENCE = re.compile(r"^(?P<indent> *)```(?!`)(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=indent)```$", re.M | re.S)
MARKS = {"try-it", "needs-outside", "tested-elsewhere", "example"}
PLACES = {"in-course", "in-demo", "in-clone"}  # where a try-it block runs: see docs/contributors/docs.md


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    language: str
    classes: frozenset[str]
    caption: str
    body: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def commands(self) -> list[str]:
        return [line[2:] for line in self.body.splitlines() if line.startswith("$ ")]

    @property
    def shown_outputs(self) -> list[list[str]]:
        """The output the page shows under each command (blank lines left out), one list per command."""
        outputs: list[list[str]] = []
        for line in self.body.splitlines():
            if line.startswith("$ "):
                outputs.append([])
            elif line.strip() and outputs:
                outputs[-1].append(line.rstrip())
        return outputs

    @property
    def place(self) -> str:
        (place,) = self.classes & PLACES
        return place


def blocks() -> list[Block]:
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text()
        for match in BLOCK.finditer(text):
            options = dict(re.findall(r"^ *:([\w-]+):\s*(.*)$", match["options"], re.M))
            body = "\n".join(line.removeprefix(match["indent"]) for line in match["body"].splitlines())
            found.append(Block(page, text.count("\n", 0, match.start()) + 1, match["language"],
                               frozenset(options.get("class", "").split()), options.get("caption", "").strip('"'),
                               body))
    return found


BLOCKS = blocks()
TRY_IT = [b for b in BLOCKS if "try-it" in b.classes]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site as `make docs` builds it: any warning (a broken link between pages or to a heading, a missing
    picture, a page in no table of contents) fails the build."""
    html = tmp_path_factory.mktemp("docs-site") / "html"
    built = subprocess.run([str(BIN / "sphinx-build"), "-W", "--keep-going", "-n", "-q", "-b", "html",
                            str(DOCS), str(html)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-4000:]
    return html


def test_the_site_builds_without_a_warning_and_loads_nothing_from_elsewhere(site):
    index = (site / "index.html").read_text()
    for reader in ("students/index", "instructors/setup", "administrators/index", "authors/new-assignment",
                   "contributors/architecture"):
        assert f'href="{reader}.html"' in index, f"the front page lost its way to {reader}"
    # Nothing the pages load comes from another host: the site reads the same offline.
    for page in site.rglob("*.html"):
        assert not re.search(r"""<(?:script|link|img)[^>]+(?:src|href)=["']https?://""", page.read_text()), page


def test_pages_pass_axe_and_fetch_nothing(site):
    """The front page, a long instructors' page and the pages with pictures, in Chromium with the network refused:
    no serious or critical axe-core violation, and no request refused (everything the theme needs is local)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            context = browser.new_context()
            refused = offline(context)
            page = context.new_page()
            for name in ("index", "instructors/watch", "students/index", "instructors/report"):
                page.goto((site / f"{name}.html").as_uri())
                assert serious_violations(page) == [], name
                page.screenshot(path=f"/tmp/page-docs-{name.replace('/', '-')}.png", full_page=True)  # to look at
            assert refused == []
        finally:
            browser.close()


def test_every_command_block_says_whether_the_tests_run_it():
    """A `code-block` of commands is a try-it block (run below), or visibly marked as needing what a test machine
    cannot have, as run by another test, or as an example of a particular course's output, with a caption saying
    so; and no command is shown at a `$ ` prompt outside such a block."""
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text()
        for fence in FENCE.finditer(text):
            prompts = [line for line in fence["body"].splitlines() if line.strip().startswith("$ ")]
            assert not prompts or fence["info"].startswith("{code-block}"), (
                f"{page.relative_to(ROOT)}:{text.count(chr(10), 0, fence.start()) + 1}: {prompts[0].strip()!r} is "
                f"shown as a command to run: make its block a code-block with a class (docs/contributors/docs.md)")
    commands = [b for b in BLOCKS if b.language in ("console", "bash", "shell")]
    assert len(TRY_IT) >= 8, "the docs lost their try-it blocks"
    for block in commands:
        assert block.classes & MARKS, f"{block.where}: mark it try-it, needs-outside or tested-elsewhere"
        assert block.caption, f"{block.where}: a caption says, on the page, whether it is run"
    for block in TRY_IT:
        assert len(block.classes & PLACES) == 1, f"{block.where}: say where it runs: one of {sorted(PLACES)}"
        assert block.commands, f"{block.where}: a try-it block with no `$ ` command"
        assert block.caption.startswith("Try it"), block.where
    for block in BLOCKS:
        if "needs-outside" in block.classes:
            assert block.caption.startswith("Needs"), f"{block.where}: the caption names what it needs"
        if "example" in block.classes:
            assert block.caption.startswith("Example"), f"{block.where}: the caption says it is an example"


@pytest.fixture(scope="module")
def demo_course(tmp_path_factory) -> Path:
    """What `demo/` holds after `make demo`, small: the assignment released, three students handed in (right, one
    known mistake, blank), graded by `autograder grade`, an LMS roster and lms.toml."""
    course = make_course(tmp_path_factory.mktemp("docs") / "demo")
    submit(course, "s001")
    submit(course, "s002", [wrong_answers(ASSIGNMENT)[0]])
    submit(course, "s003", blank=True)
    roster_step(course, ["s001", "s002", "s003"], out=lambda _: None)
    graded = grade(course)
    assert graded.returncode == 0, graded.stderr
    demo_step(course, [ASSIGNMENT], out=lambda _: None)
    return course


def place_for(block: Block, demo_course: Path | None, scratch: Path) -> Path:
    if block.place == "in-demo":
        return demo_course
    if block.place == "in-clone":
        return ROOT
    course = scratch / block.page.stem
    if not course.exists():  # one new course per page, its blocks run in order
        course.mkdir(parents=True)
        (course / "nbgrader_config.py").write_text(docs_config())
    return course


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("docs-courses")


ELIDED = "..."  # a line of its own: any lines, or none; within a line: any text (docs/contributors/docs.md)
COMMAND_MARK = "@@ try-it: the next command @@"


def shown_pattern(shown: list[str]) -> re.Pattern:
    """What a command's printed lines must be, whole and in order, for the page's `shown` lines."""
    parts = ["(?:[^\\n]*\\n)*?" if line.strip() == ELIDED else
             ".*?".join(re.escape(piece) for piece in line.split(ELIDED)) + "\\n" for line in shown]
    return re.compile("".join(parts))


def test_a_shown_output_is_compared_whole_with_elisions_where_the_page_says():
    printed = "course: ok   sandbox: full isolation\nwrote a\nwrote b\nnext: edit\n"
    assert shown_pattern(["course: ok   sandbox: ... isolation", ELIDED, "next: edit"]).fullmatch(printed)
    whole = ["course: ok   sandbox: full isolation", "wrote a", "wrote b", "next: edit"]
    assert shown_pattern(whole).fullmatch(printed)
    assert not shown_pattern(["wrote a", "wrote b", "next: edit"]).fullmatch(printed), "a line the page lacks"
    assert not shown_pattern(["course: ok   sandbox: full isolation", "wrote b", "wrote a", "next: edit"]).fullmatch(
        printed), "out of order"
    assert not shown_pattern(["course: ok   sandbox: ...", "wrote a", "next: edit"]).fullmatch(printed), (
        "an elision within a line stays within it")


@pytest.mark.parametrize("block", TRY_IT, ids=lambda b: b.where.removeprefix("docs/"))
def test_try_it_block_runs_as_written(block, request, scratch):
    """Each command exits 0, and where the page shows a command's output, that is what the command printed: every
    line, in order (blank lines aside), but where the page elides with `...`."""
    where = place_for(block, request.getfixturevalue("demo_course") if block.place == "in-demo" else None, scratch)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1", "COLUMNS": "200",
           "TERM": "dumb"}
    script = "set -e\nexec 2>&1\n" + "\n".join(f"echo '{COMMAND_MARK}'\n{command}" for command in block.commands)
    ran = subprocess.run(["bash", "-c", script], cwd=where, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=300)
    assert ran.returncode == 0, f"{block.where}: {ran.stdout[-4000:]}"
    printed = ran.stdout.split(COMMAND_MARK + "\n")[1:]
    for command, shown, out in zip(block.commands, block.shown_outputs, printed, strict=True):
        lines = "".join(line.rstrip() + "\n" for line in out.splitlines() if line.strip())
        assert not shown or shown_pattern(shown).fullmatch(lines), (
            f"{block.where}: the page shows under `$ {command}`:\n" + "\n".join(shown) +
            f"\nthe command printed:\n{lines}")
