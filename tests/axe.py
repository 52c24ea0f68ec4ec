"""axe-core (npm, `node_modules/axe-core`, installed by `make test`) run in a page Playwright opened: the
accessibility rules a screen-reader or keyboard user depends on."""

from pathlib import Path
from typing import Any

AXE = Path(__file__).resolve().parent.parent / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")


def serious_violations(page: Any) -> list[dict]:
    """axe's serious and critical violations on `page` (a Playwright page, loaded): each rule's id, help
    and the first few elements it names, so a failing assertion says what to fix."""
    assert AXE.is_file(), f"no {AXE}: run `npm ci` in the repository (make test does)"
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("axe.run(document, {resultTypes: ['violations']}).then(r => r.violations)")
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [n["target"] for n in v["nodes"][:5]]}
            for v in found if v["impact"] in SERIOUS]
