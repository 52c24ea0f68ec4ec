"""`autograder release [ASSIGNMENT...]`: regenerate release/ from source/ and record each assignment in the
gradebook (`make release` in this repository; see `authoring.release_from_source`)."""

from pathlib import Path

from autograder.cli import UserError, add_command


def register(subparsers) -> None:
    parser = add_command(subparsers, "release", run, "generate release/ from source/ and record it in the gradebook",
                         __doc__)
    parser.add_argument("assignment", nargs="*", help="default: every assignment in source/")


def run(args) -> int:
    from autograder.authoring.release_from_source import release
    from autograder.course.nbgrader_cli import CourseError
    from autograder.course.settings import SettingsError
    from autograder.grading.assignment import AssignmentError

    try:
        released = release(Path.cwd(), tuple(args.assignment))
    except (CourseError, SettingsError, AssignmentError) as exc:
        raise UserError(str(exc).splitlines()[0]) from None
    for assignment in released:
        print(f"release/{assignment}/ regenerated; {assignment} recorded in the gradebook")
    return 0
