"""A notebook's bytes as plain dicts, read the way nbformat reads them, without its schema validation on
the common path; nbformat itself reads what that path does not take (other versions, odd JSON) and says
why a notebook is unreadable."""

import codecs
import json
import re
from typing import Any

from autograder.nbgrader_glue.notebook import NotebookError

_UNREAD = object()
_JSON_KINDS = {list: "a list", str: "a string", int: "a number", float: "a number", bool: "true or false",
               type(None): "null"}


def read_fast(data: bytes, name: str) -> dict[str, Any]:
    """A notebook's bytes as plain dicts, without nbformat's schema validation (milliseconds a notebook);
    what grading needs is checked: cells with a type, a source and, where nbgrader put it, a metadata dict.
    `name` is the file's name, for messages."""
    if data.startswith(codecs.BOM_UTF8):
        # Jupyter never writes one, some editors do; nbformat would refuse the file for it, and the work in it
        # is the same.
        data = data[len(codecs.BOM_UTF8):]
    text, parsed = "", _UNREAD
    try:
        text = data.decode("utf-8")
        parsed = json.loads(text)
    except Exception:  # noqa: S110 - nbformat reads it again below, for its own message
        pass
    if parsed is not _UNREAD and not isinstance(parsed, dict):
        raise NotebookError(f"{name}: not a notebook (its JSON is {_JSON_KINDS.get(type(parsed), 'a value')}, "
                            "not an object with cells)")
    try:
        nb = parsed if parsed is not _UNREAD and parsed.get("nbformat") == 4 and _as_nbformat_reads(parsed) else None
    except Exception:  # odd cells: nbformat reads the file again, for its own message
        nb = None
    if nb is None:
        nb = _read_nbformat(data, name)
    elif "\\u" in text and _SURROGATE_ESCAPE.search(text):
        _replace_lone_surrogates(nb)
    if not isinstance(nb.get("cells"), list) or not all(
            isinstance(c, dict) and c.get("cell_type") in ("code", "markdown", "raw")
            and isinstance(c.get("source"), str) and isinstance(c.get("metadata", {}), dict)
            for c in nb["cells"]):
        raise NotebookError(f"{name}: not a readable notebook (malformed cells)")
    for cell in nb["cells"]:
        metadata = cell.setdefault("metadata", {})
        if "nbgrader" in metadata and not isinstance(metadata["nbgrader"], dict):
            del metadata["nbgrader"]  # not nbgrader's: the cell is a plain cell, as `sanitise` treats unknown ids
    return nb


# JSON text can name a lone UTF-16 surrogate (`"\ud800"`), which Python reads into a str that no UTF-8
# writer (the autograded notebook, the gradebook, a terminal) accepts. Only notebooks that name a surrogate
# at all are walked; in them, only strings that UTF-8 cannot encode change.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _replace_lone_surrogates(value: Any) -> Any:
    """Every string in the notebook with its lone surrogates replaced by U+FFFD, in place."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        for index, item in enumerate(value):
            value[index] = _replace_lone_surrogates(item)
    elif isinstance(value, dict):
        for key in list(value):
            fixed = _replace_lone_surrogates(key)
            if fixed is not key:
                value[fixed] = value.pop(key)
            value[fixed] = _replace_lone_surrogates(value[fixed])
    return value


def _as_nbformat_reads(nb: dict[str, Any]) -> bool:
    """What nbformat's v4 reader does to the JSON (join split lines, drop transient metadata), in place;
    False for a notebook it would refuse or treat otherwise. Outputs are left split: grading clears them."""
    cells, metadata = nb.get("cells"), nb.get("metadata")
    if not isinstance(cells, list) or not isinstance(metadata, dict) or not all(
            isinstance(c, dict) and isinstance(c.get("metadata"), dict) for c in cells):
        return False
    for cell in cells:
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
        for bundle in cell.get("attachments", {}).values():
            for mime, value in list(bundle.items()):
                json_mime = mime == "application/json" or (mime.startswith("application/") and mime.endswith("+json"))
                if not json_mime and isinstance(value, list) and all(isinstance(line, str) for line in value):
                    bundle[mime] = "".join(value)
        cell["metadata"].pop("trusted", None)
    for key in ("orig_nbformat", "orig_nbformat_minor", "signature"):
        metadata.pop(key, None)
    return True


def _read_nbformat(data: bytes, name: str) -> dict[str, Any]:
    """nbformat's reading, for what the fast path does not take: other versions (converted to v4, as
    nbgrader converts them), odd JSON, errors."""
    import nbformat  # loads its schema validator: only for the odd file

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotebookError(f"{name}: not a readable notebook (not UTF-8 text: byte {exc.start})") from None
    try:
        nb = nbformat.reads(text, as_version=4)
        nb = _replace_lone_surrogates(json.loads(json.dumps(nb)))  # plain dicts, as the fast path gives
    except Exception as exc:  # JSON errors, encodings, unknown versions: all mean "unreadable"
        raise NotebookError(f"{name}: not a readable notebook ({type(exc).__name__}: "
                            f"{' '.join(str(exc).split())[:160]})") from None
    if not _as_nbformat_reads(nb):
        raise NotebookError(f"{name}: not a readable notebook (malformed cells)")
    return nb
