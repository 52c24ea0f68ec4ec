"""Functions of a namespace answered, for a while, by stand-ins: in the namespace, and wherever a function
of it holds one of them as a default argument (`g=sigmoid`, bound when it was defined).

Used on both sides of the sandbox: by the student's process, whose stand-ins ask the grader, and in the
kernel and on the trusted side, whose stand-ins answer from the reference's recorded calls
(`autograder.grader_support.dependencies`). It imports nothing of the graders.
"""

import types
from collections.abc import MutableMapping
from typing import Any


class Replaced:
    """`stand_ins` (name -> function) in `namespace` until `undo()` (or the end of a `with` block)."""

    def __init__(self, namespace: MutableMapping[str, Any], stand_ins: dict[str, Any]) -> None:
        self.namespace = namespace
        self.saved = {name: namespace[name] for name in stand_ins if name in namespace}
        by_identity = {id(value): stand_ins[name] for name, value in self.saved.items()}
        self.defaults: list[tuple[types.FunctionType, Any, Any]] = []
        for value in list(namespace.values()):
            if not isinstance(value, types.FunctionType) or value in self.saved.values():
                continue
            defaults, kwdefaults = value.__defaults__, value.__kwdefaults__
            if any(id(d) in by_identity for d in defaults or ()) or any(
                    id(d) in by_identity for d in (kwdefaults or {}).values()):
                self.defaults.append((value, defaults, kwdefaults))
                if defaults:
                    value.__defaults__ = tuple(by_identity.get(id(d), d) for d in defaults)
                if kwdefaults:
                    value.__kwdefaults__ = {k: by_identity.get(id(d), d) for k, d in kwdefaults.items()}
        for name in self.saved:
            namespace[name] = stand_ins[name]

    def undo(self) -> None:
        self.namespace.update(self.saved)
        self.saved = {}
        for function, defaults, kwdefaults in self.defaults:
            function.__defaults__, function.__kwdefaults__ = defaults, kwdefaults
        self.defaults = []

    def __enter__(self) -> "Replaced":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.undo()
