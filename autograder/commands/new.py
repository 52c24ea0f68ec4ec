"""`autograder new ASSIGNMENT EXERCISE...`: scaffold an assignment in the course folder (see `authoring.scaffold`)."""

from pathlib import Path

from autograder.cli import UserError


def register(subparsers) -> None:
    parser = subparsers.add_parser("new", help="scaffold a new assignment: notebook, self-check and graders",
                                   description=__doc__.splitlines()[0])
    parser.add_argument("assignment")
    parser.add_argument("exercise", nargs="+", help="a function the students write (one grade cell each)")
    parser.set_defaults(run=run)


def run(args) -> int:
    from autograder.authoring import AuthoringError
    from autograder.authoring.scaffold import scaffold, validate_names
    from autograder.course.settings import SettingsError, read_course

    try:
        validate_names(args.assignment, args.exercise)  # before anything is written, the graders folder too
        settings = read_course(Path.cwd(), rooted=True, create_graders=True)
        written = scaffold(settings, args.assignment, args.exercise)
    except (SettingsError, AuthoringError) as exc:
        raise UserError(str(exc)) from None
    for path in written:
        print(f"wrote {path.relative_to(settings.root) if path.is_relative_to(settings.root) else path}")
    print(f"next: edit them, then `autograder check {args.assignment}` and `autograder release {args.assignment}`")
    return 0
