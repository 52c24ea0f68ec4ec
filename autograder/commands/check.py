"""`autograder check ASSIGNMENT...`: what an assignment still lacks, one line each (see `authoring.assignment_checks`).
Exit status 1 when anything fails."""

from pathlib import Path

from autograder.cli import UserError, add_command


def register(subparsers) -> None:
    parser = add_command(subparsers, "check", run, "check an assignment's notebook, graders, solution and release",
                         __doc__)
    parser.add_argument("assignment", nargs="*", help="default: every assignment in source/")


def run(args) -> int:
    from autograder.authoring.assignment_checks import check_assignment, check_sandbox
    from autograder.course.secrecy import refuse_leaks
    from autograder.course.settings import SettingsError, read_course
    from autograder.display.terminal import visible

    try:
        settings = read_course(Path.cwd(), rooted=True)
        refuse_leaks(settings)
    except SettingsError as exc:
        raise UserError(str(exc)) from None
    assignments = args.assignment or settings.assignments
    if not assignments:
        raise UserError(f"no assignments in {settings.path('source', '.', '.').resolve()}")
    sandbox = check_sandbox(settings)
    print(visible(f"course: {sandbox}"))
    failed = sandbox.status == "FAIL"
    for assignment in assignments:
        for finding in check_assignment(settings, assignment):
            print(visible(f"{assignment}: {finding}"))
            failed += finding.status == "FAIL"
    return 1 if failed else 0
