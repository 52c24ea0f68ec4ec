"""A class graded by the real `nbgrader autograde`: every catalogue answer, the solution and a blank release.

Grading through nbgrader costs about 3 CPU-seconds a submission (a kernel, and the notebook's figure), so the
answers are packed several to a submission, the class is built once per test session, and it is split into
shards (separate course copies, each with its own gradebook) that grade in parallel.
"""

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import Answer, combined_answers, packed_answers, wrong_answers
from autograder.nbgrader_glue.notebook import grade_id
from tests.grading_course import gradebook_scores, make_course, submit

SHARDS = 3
# The class is graded for its scores, outputs and feedback. rnn_update_equations' notebook draws a figure, which its
# kernel would render to a PNG after the cell (~0.5 CPU-s a kernel, 73 kernels) for the autograded notebook alone:
# no test reads it and the feedback leaves every output of a cell without grades out
# (autograder.feedback.preprocessors). With
# matplotlib's Agg backend the figure is still made, only not rendered; the kernels inherit the setting from
# nbgrader, which reads it here.
NO_FIGURE_RENDERING = 'import os\nos.environ["MPLBACKEND"] = "agg"'


@dataclass
class GradedClass:
    assignment: str
    answers: dict[str, tuple[Answer, ...]] = field(default_factory=dict)  # student -> answers (none: as released)
    courses: dict[str, Path] = field(default_factory=dict)  # student -> the shard that graded them
    scores: dict[str, dict[str, float]] = field(default_factory=dict)  # student -> grade_id -> score

    def autograded(self, student: str) -> nbformat.NotebookNode:
        path = self.courses[student] / "autograded" / student / self.assignment / f"{self.assignment}.ipynb"
        return nbformat.read(str(path), as_version=4)

    def cell_output(self, student: str, cell_grade_id: str) -> str:
        """Everything a grade cell printed or returned, as text."""
        for cell in self.autograded(student).cells:
            if grade_id(cell) == cell_grade_id:
                parts = []
                for out in cell.get("outputs", []):
                    parts.append(out.get("text", "") or out.get("data", {}).get("text/plain", ""))
                    parts.append("\n".join(out.get("traceback", [])))
                return "\n".join(parts)
        raise KeyError(cell_grade_id)

    def feedback_html(self, student: str) -> str:
        """The student's feedback page (made for the students `with_feedback` names)."""
        path = self.courses[student] / "feedback" / student / self.assignment / f"{self.assignment}.html"
        return path.read_text()


def student_ids(assignment: str) -> dict[str, tuple[Answer, ...]]:
    """`solution` and `blank`, then the catalogue's answers packed into few students (p: `packed_answers`, each
    holding at most one answer per exercise), then one student per combination of a correct answer on a wrong
    one it calls (x: `combined_answers`)."""
    students: dict[str, tuple[Answer, ...]] = {"solution": (), "blank": ()}
    for index, answers in enumerate(packed_answers(assignment)):
        students[f"p{index:03d}"] = answers
    for index, answers in enumerate(combined_answers(assignment)):
        students[f"x{index:03d}"] = answers
    return students


def with_feedback(assignment: str, answers: dict[str, tuple[Answer, ...]]) -> set[str]:
    """The students whose feedback page is made: the pages the tests read (of every student given a wrong answer
    with a hint, which the page must name; the solution's and the first and last packed students', which must
    hide the hidden tests) and the blank release's. nbgrader's page costs about 1 CPU-second a student: the
    class's other students (correct answers only, or mistakes without a hint) would be made for no reader."""
    hinted = {answer.label for answer in wrong_answers(assignment) if answer.hint}
    packed = [student for student in answers if student.startswith("p")]
    return {"solution", "blank", packed[0], packed[-1]} | {
        student for student, given in answers.items() if any(answer.label in hinted for answer in given)}


def grade_class(root: Path, assignment: str) -> GradedClass:
    graded = GradedClass(assignment, student_ids(assignment))
    names = list(graded.answers)
    shards = [names[i::SHARDS] for i in range(SHARDS)]
    read = with_feedback(assignment, graded.answers)

    def run_shard(index: int) -> None:
        course = make_course(root / f"shard{index}", NO_FIGURE_RENDERING, assignment=assignment)
        for student in shards[index]:
            submit(course, student, graded.answers[student], assignment=assignment, blank=student == "blank",
                   selfcheck=True)
            graded.courses[student] = course
        nbgrader(course, "autograde", assignment, check=False)
        # nbgrader reports a student it could not grade (a kernel that died or did not start in time on a
        # loaded machine) and goes on; grade those once more, alone, and fail loudly if it happens again.
        # nbgrader removes the autograded folder of a student it failed on.
        for student in [s for s in shards[index] if not (course / "autograded" / s / assignment).is_dir()]:
            nbgrader(course, "autograde", assignment, "--student", student, "--force")
        unread = [student for student in shards[index] if student not in read]
        nbgrader(course, "generate_feedback", assignment,
                 *([f"--CourseDirectory.student_id_exclude={','.join(unread)}"] if unread else []))

    with ThreadPoolExecutor(SHARDS) as pool:
        list(pool.map(run_shard, range(SHARDS)))
    for course in {*graded.courses.values()}:
        graded.scores.update(gradebook_scores(f"sqlite:///{course}/gradebook.db", assignment))
    return graded
