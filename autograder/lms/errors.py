"""Errors the LMS code raises for problems the user can fix; each message is one line."""


class LmsError(Exception):
    """A user-fixable problem (bad file, missing setting, missing identity): printed as one line."""


class MissingIdentity(LmsError):
    """Students lack the identity an LMS needs to match them; `students` lists their nbgrader ids."""

    def __init__(self, lms: str, field: str, students: list[str]) -> None:
        self.lms = lms
        self.field = field
        self.students = students
        shown = ", ".join(students[:20]) + (f" and {len(students) - 20} more" if len(students) > 20 else "")
        super().__init__(
            f"{len(students)} student(s) have no {field}, which {lms} needs to match them: {shown} "
            f"(import a roster with `autograder roster import`, or pass --skip-missing)"
        )
