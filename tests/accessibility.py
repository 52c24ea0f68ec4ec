"""axe-core's accessibility audit of a page open in Playwright: the violations a person would meet.

axe-core is npm's package, pinned in tests/package.json and installed by `make install` (tests/node_modules);
it is injected into the page under test, which needs no network for it.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")


@dataclass(frozen=True)
class Violation:
    rule: str
    impact: str
    help: str
    where: tuple[str, ...]  # CSS selectors of the first few elements that break the rule

    def __str__(self) -> str:
        return f"{self.impact} {self.rule}: {self.help} ({', '.join(self.where)})"


def axe_violations(page: Any, impacts: tuple[str, ...] = BLOCKING) -> list[Violation]:
    """axe-core's violations of `impacts` on the page as it is now (a Playwright `Page`), WCAG 2.x A and AA and
    axe's best practices."""
    assert AXE.is_file(), f"{AXE} is missing: run `make install` (it runs `npm ci` in tests/; npm is Debian's `npm`)"
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [Violation(v["id"], v["impact"], v["help"], tuple(" ".join(n["target"]) for n in v["nodes"][:5]))
            for v in found if v.get("impact") in impacts]
