"""The export formats are named once (`lms.format_names`): the command line offers those names without
loading nbgrader, and each has its plugin."""

import subprocess
import sys

from autograder.lms.format_names import FORMAT_NAMES


def test_the_command_line_offers_the_declared_names_without_loading_nbgrader():
    code = ("import sys\nfrom autograder.cli import build_parser\n"
            "parser = build_parser()\n"
            "action = next(a for a in parser._subparsers._group_actions[0].choices['export']._actions"
            " if a.dest == 'format')\n"
            "print(list(action.choices), 'nbgrader' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"{list(FORMAT_NAMES)} False"


def test_every_declared_name_has_its_plugin():
    from autograder.lms.exports import FORMATS

    assert tuple(FORMATS) == FORMAT_NAMES
    assert all(FORMATS[name].format_name == name for name in FORMAT_NAMES)
