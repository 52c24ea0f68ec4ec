"""`autograder COMMAND ...`: one entry point for grading, regrading, scores, LMS exchange and authoring.

One module per command; each exposes `register(subparsers)`, which adds its parser and sets `run(args) -> int`.
A user's mistake ends in a one-line message and exit status 1, never a traceback.
"""

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Callable

# Before NumPy loads (the commands import it): the trusted side's arrays are tiny, and OpenBLAS would
# otherwise start a thread per core that spins between calls, taking CPU from the submissions being graded.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from autograder.course.nbgrader_cli import tools_on_path  # noqa: E402
from autograder.grading.startup import nbgrader_without_server_extensions  # noqa: E402

COMMANDS = (
    "autograder.commands.grade",
    "autograder.commands.regrade",
    "autograder.commands.history",
    "autograder.commands.scores",
    "autograder.commands.collect",
    "autograder.commands.export",
    "autograder.commands.push",
    "autograder.commands.roster",
    "autograder.commands.report",
    "autograder.commands.similarity",
    "autograder.commands.watch",
    "autograder.commands.hub",
    "autograder.commands.status",
    "autograder.commands.new",
    "autograder.commands.check",
    "autograder.commands.release",
    "autograder.commands.db",
    "autograder.commands.extend",
    "autograder.commands.label",
    "autograder.commands.override",
    "autograder.commands.exceptions",
)


class UserError(Exception):
    """A problem the user can fix (bad argument, missing file); printed as one line."""


def first_paragraph(text: str) -> str:
    """A docstring's first paragraph as one line, for `--help`, which wraps it again at the terminal's width."""
    return " ".join(text.split("\n\n")[0].split())


def add_command(subparsers: argparse._SubParsersAction, name: str, run: Callable[[argparse.Namespace], int],
                help: str, description: str) -> argparse.ArgumentParser:
    """A command's (or a command's action's) parser, whose arguments `run` is called with. `description`: its
    first paragraph is shown, whole (a command module passes its docstring, wrapped at any word)."""
    parser = subparsers.add_parser(name, help=help, description=first_paragraph(description))
    parser.set_defaults(run=run)
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="autograder", description=__doc__.splitlines()[0])
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:  # the command exists but something it needs is missing
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    tools_on_path()
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except UserError as exc:
        print(f"autograder {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"autograder {args.command}: interrupted", file=sys.stderr)
        return 130


def entry() -> None:
    """The console script: `main`, then an exit that skips tearing the interpreter down (the libraries
    grading loads take a tenth of a second to unload, and by then everything is written and closed). The
    process loads nbgrader's modules without its Jupyter server extensions (`startup`)."""
    nbgrader_without_server_extensions()
    code = main()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    # Run as `python -m autograder.cli`, this file is `__main__`: call the copy the commands import, so the
    # UserError they raise is the one `main` catches.
    from autograder.cli import main as imported_main

    nbgrader_without_server_extensions()
    sys.exit(imported_main())
