"""A static literature-survey site generator: corpus -> Markdown -> MkDocs site."""

from __future__ import annotations

__version__ = "0.1.0"
