"""Material for MkDocs's end-of-life notice, off for this project's `mkdocs` commands.

Material prints a 9-line notice (its end of life, Zensical) to every `mkdocs build` and `mkdocs
serve` when its theme is imported, unless NO_MKDOCS_2_WARNING is set (material/templates/
__init__.py). The theme is imported while MkDocs validates mkdocs.yml, before any plugin is
loaded, so the plugin cannot set it in time; mkdocs.yml names this module with a
`!!python/name:` tag instead, which MkDocs's YAML loader resolves (importing the module) while it
reads the file. To see the notice again, remove the `material_notice` line of mkdocs.yml.
"""

from __future__ import annotations

import os

os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")

OFF = True  # what mkdocs.yml's tag names: importing this module is what it is for
