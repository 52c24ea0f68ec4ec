"""Sphinx settings for the documentation site (`make docs`): Markdown pages read by MyST-Parser, a theme that
ships everything it loads, and nothing fetched at build or read time."""

project = "RNN hidden state: an autograded course"
author = "the course's instructors"
copyright = "the course's instructors"

extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# `[text](page.md#heading)` links are checked like any reference: a heading's slug up to level 4 is a target,
# and a link to one that does not exist is a warning, which `make docs` (-W) turns into an error.
myst_heading_anchors = 4
# ::: fences for the "try it" and "needs ..." boxes; `{attribution}`-free Markdown otherwise.
myst_enable_extensions = ["colon_fence", "attrs_block"]
nitpicky = True

html_theme = "pydata_sphinx_theme"
html_title = "RNN hidden state: an autograded course"
html_static_path = ["_static"]
html_css_files = ["try-it.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": [],
    "footer_end": [],
    "navbar_align": "left",
    # The theme's search button labels itself "Search" but shows "Search Ctrl+K", which axe-core reports as a
    # serious violation (its accessible name must hold its visible text); the search field in the sidebar has none.
    "navbar_persistent": [],
}
html_sidebars = {"**": ["search-field", "sidebar-nav-bs"]}
html_show_sourcelink = False
html_copy_source = False
