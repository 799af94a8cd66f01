"""A paper's code repository, when its abstract names one: the Code link an import records.

Many abstracts end "Code: https://github.com/OWNER/REPO" (about one in six of the real arXiv
feed's). An import (and `survey add`) writes the first GitHub or GitLab repository an abstract
names as the paper's `links.code` when the paper has none, into the paper's file, where a
curator sees it and corrects it (a wrong one: edit it, and list `links` in `curated`). It is
not guessed when a page is built: what the site shows is what the file says.
"""

from __future__ import annotations

import re

from ..core.tex import tex_text

# GitHub's own pages that are not an owner's (github.com/features/copilot, /orgs/x/...).
_NOT_OWNERS = frozenset({
    "about", "apps", "collections", "contact", "customer-stories", "enterprise", "events", "explore",
    "features", "login", "marketplace", "new", "notifications", "orgs", "organizations", "pricing",
    "pulls", "issues", "search", "security", "settings", "site", "sponsors", "topics", "trending",
    "users", "join", "readme", "blog", "solutions", "resources", "team", "codespaces",
})
_GITHUB = re.compile(
    r"(?<![\w.@/-])(?:https?://)?(?:www\.)?github\.com/"
    r"([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/([A-Za-z0-9._-]{1,100})", re.IGNORECASE)
# GitLab nests groups (gitlab.com/group/subgroup/project); a project's own pages follow `/-/`
# (or, in older addresses, `/tree/`, `/blob/`).
_GITLAB = re.compile(r"(?<![\w.@/-])(?:https?://)?(?:www\.)?gitlab\.com/([A-Za-z0-9_./-]{3,500})",
                     re.IGNORECASE)
_GITLAB_PAGES = frozenset({"-", "tree", "blob", "issues", "wikis", "merge_requests", "commits"})


def repository_url(abstract: str) -> str | None:
    """The first GitHub or GitLab repository the abstract names, as its address
    (`https://github.com/microsoft/BitNet` for `https://github.com/microsoft/BitNet/tree/paper`),
    or None."""
    if "github" not in abstract.lower() and "gitlab" not in abstract.lower():
        return None
    text = tex_text(abstract)  # `\url{...}`, `\href{...}{...}`, `a\_b` read as shown
    found: list[tuple[int, str]] = []
    for match in _GITHUB.finditer(text):
        owner, repo = match.group(1), _repo_name(match.group(2))
        if owner.lower() not in _NOT_OWNERS and repo:
            found.append((match.start(), f"https://github.com/{owner}/{repo}"))
            break
    for match in _GITLAB.finditer(text):
        parts = []
        for part in match.group(1).split("/"):
            if not part or part in _GITLAB_PAGES:
                break
            parts.append(part)
        parts[-1:] = [_repo_name(p) for p in parts[-1:]]
        if len(parts) >= 2 and all(parts):
            found.append((match.start(), "https://gitlab.com/" + "/".join(parts)))
            break
    return min(found)[1] if found else None


def _repo_name(name: str) -> str:
    """A repository's name as written before the sentence goes on: a full stop ending the
    sentence and `.git` are not part of it (`llama.cpp` keeps its own)."""
    name = name.rstrip(".")
    return name[:-4] if name.lower().endswith(".git") else name
