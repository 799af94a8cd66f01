"""What the browser shows under `mkdocs serve` while the corpus or a template has an error.

MkDocs's server holds every request while a rebuild that raised is not followed by one that
succeeds ("the server will appear stuck"): a contributor looking at the browser would see a
spinner. Under serve the plugin therefore reports the error in the terminal and lets the build
finish without the survey's pages: each of them, and every page the site lacks (the server's
404 page), is this page instead, naming the file, the line and the problem. It asks for itself
again every second and reloads once the answer is no longer an error page, that is once the
error is fixed and the site rebuilt.
"""

from __future__ import annotations

import html
from pathlib import Path

MARKER = "survey-build-error"

_PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Build error - {name}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}}
pre{{white-space:pre-wrap;background:#fdecea;border-left:4px solid #c62828;padding:1rem}}</style>
</head>
<body id="{marker}">
<h1>The site could not be built</h1>
<p>Fix the problem below and save the file: this page reloads once the site is built again.</p>
<pre>{message}</pre>
<script>
setInterval(function () {{
  fetch(location.href, {{cache: "no-store"}}).then(function (r) {{ return r.text(); }})
    .then(function (text) {{ if (text.indexOf('id="{marker}"') < 0) location.reload(); }})
    .catch(function () {{}});
}}, 1000);
</script>
</body>
</html>
"""


def error_page(message: str, site_name: str) -> str:
    return _PAGE.format(name=html.escape(site_name), marker=MARKER, message=html.escape(message))


def show_error(site_dir: Path, pages: list[str], message: str, site_name: str) -> None:
    """Write the error page as the site's 404 page and over each of `pages` (paths of HTML files
    below site_dir that an earlier build wrote and a dirty build would otherwise still serve)."""
    text = error_page(message, site_name)
    for page in ["404.html", *pages]:
        target = site_dir / page
        if page == "404.html" or target.is_file():
            target.write_text(text, encoding="utf-8")
