"""A number an instructor reads on the class report: in an element marked `data-metric`, so a test finds the
rendered value in a browser; points as the report writes them."""

from html import escape


def points(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def metric(name: str, text: str, tag: str = "span", cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return f'<{tag}{klass} data-metric="{name}">{escape(text)}</{tag}>'
