"""Every command's `--help` says what it does in whole sentences: the first paragraph of its docstring, never its
first line cut where the source wraps it (eleven commands once stopped mid-sentence: `extend` said "move (or")."""

import argparse

import pytest

from autograder.cli import build_parser


def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    found = []

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        found.append((name, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, child in action.choices.items():
                    walk(child, f"{name} {sub}".strip())

    walk(build_parser(), "")
    return found


PARSERS = _parsers()


def test_every_command_is_there():
    names = {name for name, _ in PARSERS}
    assert {"grade", "extend", "override", "regrade", "watch", "roster sync", "db upgrade"} <= names


@pytest.mark.parametrize("name, parser", PARSERS, ids=[name or "autograder" for name, _ in PARSERS])
def test_help_describes_the_command_in_whole_sentences(name, parser, capsys):
    description = parser.description or ""
    assert description.rstrip().endswith((".", ".)")), f"autograder {name} --help: {description!r}"
    assert "  " not in description and "\n" not in description  # rewrapped by argparse, not by the source
    parser.print_help()
    shown = "".join(capsys.readouterr().out.split())  # argparse may wrap at a hyphen too
    assert "".join(description.split()) in shown
