"""Headless Chromium (Debian's package) for tests that check what a person sees on a page: run directly, or
driven by Playwright (`offline` keeps such a page from the network; tests/axe.py audits it)."""

import html
import json
import re
import subprocess
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
]


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    assert CHROMIUM.is_file(), "Chromium is missing: `apt-get install -y chromium` (.ci/run installs it)"
    profile = tmp_path / f"chromium-profile-{len(list(tmp_path.iterdir()))}"
    command = [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)


def seen_after_load(page_html: str, script: str, tmp_path: Path) -> dict:
    """What `script` (a JS expression evaluated after `load`) finds on the page, read back as JSON."""
    probe = tmp_path / "probe.html"
    probe.write_text(page_html.replace("</body>", f"""<script>
window.addEventListener("load", () => {{
  const pre = document.createElement("pre");
  pre.id = "browser-check";
  pre.textContent = JSON.stringify({script});
  document.body.appendChild(pre);
}});
</script></body>"""))
    dom = chromium(tmp_path, "--virtual-time-budget=10000", "--dump-dom", probe.as_uri()).stdout
    found = re.search(r'<pre id="browser-check">(.*?)</pre>', dom, re.S)
    assert found, f"the page's load event never ran; DOM ends with: {dom[-500:]}"
    return json.loads(html.unescape(found.group(1)))


def offline(context: Any) -> list[str]:
    """Refuse every request of a Playwright browser context but for files (the page itself, its own files):
    the list returned fills with the addresses refused, so a test sees what the page tried to fetch."""
    refused: list[str] = []

    def only_files(route: Any) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    context.route("**/*", only_files)
    return refused
