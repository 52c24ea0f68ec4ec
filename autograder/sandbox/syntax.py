"""A cell's IPython syntax (magics, `!shell`) as plain Python calls on `get_ipython()`, as a kernel runs it.

Students' cells are transformed in their sandboxed process, where the time it takes counts against the
cell's limit: IPython's transformer can take a minute on a cell of many `!` lines.
"""

MODULE = "IPython.core.inputtransformer2"


def needs_transform(source: str) -> bool:
    """Whether IPython's transformer could change this text (without it, nothing is imported)."""
    return "%" in source or "!" in source or "?" in source


def python_source(source: str) -> str:
    if not needs_transform(source):
        return source
    from IPython.core.inputtransformer2 import TransformerManager  # IPython loads only for a cell that needs it

    return TransformerManager().transform_cell(source)
