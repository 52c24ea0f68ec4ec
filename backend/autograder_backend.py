"""setuptools' build backend, with one addition: an editable wheel (`pip install -e CLONE`, what the docs tell
instructors) carries the project's data-files as a normal wheel does.

setuptools leaves them out of an editable wheel (seen with 84.2: its `editable_wheel` asks the distribution
`has_data()`, which it does not define, so it never runs `install_data`), and pip then never installs
`{sys.prefix}/etc/jupyter/nbgrader_config.py`: the file through which nbgrader applies the framework's defaults
(autograder/course/defaults.py) to every course. The files are the ones pyproject.toml declares in
`[tool.setuptools.data-files]`; where setuptools already put one in the wheel, it is left as it is.
"""

import base64
import hashlib
import tomllib
import zipfile
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - every other hook is setuptools' own


def build_editable(wheel_directory: str, config_settings: dict | None = None,
                   metadata_directory: str | None = None) -> str:
    name = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    add_data_files(Path(wheel_directory) / name, Path.cwd())  # the frontend runs the backend in the project
    return name


def data_files(project: Path) -> dict[str, list[str]]:
    """pyproject.toml's `[tool.setuptools.data-files]`: install folder (under sys.prefix) -> files of the project."""
    with open(project / "pyproject.toml", "rb") as file:
        return tomllib.load(file).get("tool", {}).get("setuptools", {}).get("data-files", {})


def add_data_files(wheel: Path, project: Path) -> None:
    """Write the wheel again with each data file under `<name>-<version>.data/data/` and in its RECORD."""
    with zipfile.ZipFile(wheel) as old:
        members = [(info, old.read(info)) for info in old.infolist()]
    names = {info.filename for info, _ in members}
    record = next(name for name in names if name.endswith(".dist-info/RECORD"))
    data = record.split("/")[0].removesuffix(".dist-info") + ".data/data"
    added = {}
    for folder, files in data_files(project).items():
        for source in files:
            arcname = f"{data}/{folder.strip('/')}/{Path(source).name}"
            if arcname not in names:
                added[arcname] = (project / source).read_bytes()
    if not added:
        return
    rows = "".join(f"{arcname},sha256={_digest(content)},{len(content)}\n" for arcname, content in added.items())
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as new:
        for info, content in members:
            if info.filename == record:
                content = rows.encode() + content  # RECORD lists itself last
            new.writestr(info, content)
        for arcname, content in added.items():
            new.writestr(arcname, content)


def _digest(content: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
