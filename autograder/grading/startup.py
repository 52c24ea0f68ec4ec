"""Start-up of the grading commands, in the order that keeps a class fast: the sandbox's zygotes are launched
first (they boot while this process loads), the worker pool forks from a process that has loaded neither
nbgrader nor the gradebook, and only then do nbgrader's modules load here, with stand-ins for the parts of
them grading never uses (`stand_ins`). What the sandbox must hide is named here too (`hidden_paths`)."""

import importlib.util
import sys
import types
from pathlib import Path

import autograder


def without_iri_grammar() -> None:
    """jsonschema (under nbformat) imports rfc3987_syntax when it is installed, which builds a grammar for a
    second at import; no notebook schema uses the IRI formats it checks, so it is kept out."""
    sys.modules.setdefault("rfc3987_syntax", None)


def stand_ins() -> None:
    """Before nbgrader's modules load in this process: its package without its server extensions, nbformat
    and setuptools' archive functions loaded only when first used."""
    nbgrader_without_server_extensions()
    nbformat_on_demand()
    archive_util_on_demand()


def hidden_paths(root: Path, graders: Path | None = None) -> list[str]:
    """What the sandbox must not show even where it lies inside a runtime path: the course, this package
    (the graders), the course's own graders folder (`c.Autograder.graders`, wherever it is) and the home
    folder."""
    own = [str(graders)] if graders is not None else []
    return [str(root), str(Path(autograder.__file__).resolve().parent), *own, str(Path.home())]


def nbgrader_without_server_extensions() -> None:
    """Register the `nbgrader` package without running its `__init__`, which loads the Jupyter server
    extensions (jupyter_server, tornado handlers, the exchange, nbconvert: about 0.7 CPU-seconds); a command
    imports only the modules it uses (`api`, `coursedir`, `utils`, `plugins`, `preprocessors`, `apps`), which
    import as usual, and the package's version, which its apps read. Only in an autograder command's own
    process (`cli.entry`): nbgrader runs as its own command, and a Jupyter server loads the whole package."""
    if "nbgrader" in sys.modules:
        return
    spec = importlib.util.find_spec("nbgrader")
    if spec is not None:
        package = importlib.util.module_from_spec(spec)
        sys.modules["nbgrader"] = package
        from nbgrader._version import __version__

        package.__version__ = __version__


def nbformat_on_demand() -> None:
    """`nbgrader.utils` imports `nbformat.notebooknode`, and with it nbformat's `__init__`, which loads its
    schema validator and jsonschema; grading reads and writes notebooks as plain JSON and
    needs nbformat's own functions only for an odd notebook. The package is registered with its submodules
    importable as usual; its `__init__` runs the first time one of its names is asked for."""
    if "nbformat" in sys.modules:
        return
    spec = importlib.util.find_spec("nbformat")
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)

    def complete(name: str):
        del module.__getattr__  # before running __init__, whose own `from . import v4` must not come here
        spec.loader.exec_module(module)
        return getattr(module, name)

    module.__getattr__ = complete
    sys.modules["nbformat"] = module


def archive_util_on_demand() -> None:
    """`nbgrader.utils` imports three functions from `setuptools.archive_util` (for zipped submissions,
    which grading never unpacks), and importing setuptools is slow. Stand-ins load it when first called."""
    if "setuptools.archive_util" in sys.modules:
        return
    module = types.ModuleType("setuptools.archive_util")

    def on_demand(name: str):
        def load_and_call(*args, **kwargs):
            if sys.modules.get("setuptools.archive_util") is module:
                del sys.modules["setuptools.archive_util"]
            real = importlib.import_module("setuptools.archive_util")
            return getattr(real, name)(*args, **kwargs)
        return load_and_call

    for name in ("unpack_archive", "unpack_tarfile", "unpack_zipfile"):
        setattr(module, name, on_demand(name))
    sys.modules["setuptools.archive_util"] = module
