"""`autograder new ASSIGNMENT EXERCISE...`: scaffold an assignment in the course folder (see `authoring.scaffold`)."""

from pathlib import Path

from autograder.cli import UserError, add_command


def register(subparsers) -> None:
    parser = add_command(subparsers, "new", run, "scaffold a new assignment: notebook, self-check and graders", __doc__)
    parser.add_argument("assignment")
    parser.add_argument("exercise", nargs="+", help="a function the students write (one grade cell each)")


def run(args) -> int:
    from autograder.authoring import AuthoringError
    from autograder.authoring.course_gitignore import ensure_gitignore
    from autograder.authoring.scaffold import scaffold, validate_names
    from autograder.course.settings import SettingsError, read_course

    try:
        validate_names(args.assignment, args.exercise)  # before anything is written, the graders folder too
        settings = read_course(Path.cwd(), rooted=True, create_graders=True)
        written = scaffold(settings, args.assignment, args.exercise)
        ignore = ensure_gitignore(settings.root)
    except (SettingsError, AuthoringError) as exc:
        raise UserError(str(exc)) from None
    for path in written + ([ignore] if ignore else []):
        print(f"wrote {path.relative_to(settings.root) if path.is_relative_to(settings.root) else path}")
    print(f"next: edit them, then `autograder check {args.assignment}` and `autograder release {args.assignment}`")
    return 0
