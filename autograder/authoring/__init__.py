"""Writing a course: `autograder new` scaffolds an assignment (scaffold.py), `autograder check` says what it still
lacks (assignment_checks.py). Course content lives in the course folder; nothing here is edited to add an assignment."""


class AuthoringError(Exception):
    """An author's mistake the command cannot work around; one line naming the file or the name."""
