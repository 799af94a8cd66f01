"""Whether what an interrupted write left is this machine's survey's own: journal.py finishes
nothing else.

A pull request can commit a `corpus/.survey-write/` (git stores links; `git add -f` passes
.gitignore), and a replay of it would move files from anywhere into the corpus, or over
anything. So a `.survey-write/` or `.survey-lock` that git tracks is refused (survey never
commits one; `survey check` fails, and CI with it). A manifest is sealed with an HMAC under a
key this machine made at its first write and keeps outside every repository
(`$XDG_STATE_HOME/survey/journal-key`, by default under `~/.local/state/`): a manifest from a
checkout, a copied folder or an archive carries no valid seal, and a seal tells nothing of the
key. (A secret beside the corpus would travel with it; an inode number or a time can be
guessed.) Even a sealed manifest names only the corpus's own files, no link on a path is
followed, and only a plain file of bounded size is read: a link to /dev/zero or a FIFO never is.
The lock file is trusted with nothing (its text is only shown, escaped), and a staging folder
without a manifest is never applied, only removed, which follows no link.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import subprocess
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

from ..core.errors import SurveyError
from ..core.text import shown_path
from ..core.yamlio import MAX_FILE_BYTES, NOFOLLOW, NotPlain, plain_bytes

# What a write may change: the corpus's own files, one folder deep at most.
CORPUS_FILE = re.compile(r"(?:papers|listings)/[^/.][^/]*\.yaml|taxonomy\.yaml|topic_model\.yaml|"
                         r"rejected\.yaml")


class Untrusted(SurveyError):
    """Why a `.survey-write/` is not one this machine's survey left."""


def refuse_committed(root: Path, names: Sequence[str]) -> None:
    """Refuse any of these files of the writer's that git tracks."""
    names = [name for name in names if os.path.lexists(root / name)]
    if not names:
        return
    try:
        found = subprocess.run(["git", "ls-files", "-z", "--", *names], cwd=root, capture_output=True,
                               timeout=60)
    except (OSError, subprocess.SubprocessError):
        return  # no git here, so no commit brought it
    tracked = {p.split("/")[0] for p in found.stdout.decode("utf-8", "replace").split("\0")}
    for name in names:
        if found.returncode == 0 and name in tracked:
            shown = shown_path(root / name)
            raise SurveyError(f"{shown}: tracked by git, so not left by a survey command on this "
                              f"machine; nothing in it is applied: remove it (git rm -r {shown})")


def machine_key() -> bytes:
    """This machine's key, made at its first write."""
    return _key(make=True)


def seal(manifest: dict[str, Any], key: bytes) -> str:
    return hmac.new(key, json.dumps(manifest, sort_keys=True).encode("utf-8"), "sha256").hexdigest()


def unsealed(data: bytes) -> dict[str, Any]:
    """A manifest's content, if this machine's survey sealed it."""
    key = _key()
    try:
        info = json.loads(data)
    except (ValueError, RecursionError):
        info = None
    said = info.pop("seal", None) if isinstance(info, dict) else None
    if not key or not isinstance(said, str) or not hmac.compare_digest(said.encode(),
                                                                       seal(info, key).encode()):
        raise Untrusted("its manifest does not carry this machine's seal")
    files = info.get("files")  # sealed, so survey's own shape; checked all the same
    if not isinstance(files, list) or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) and isinstance(e.get("sha256"), str)
            and CORPUS_FILE.fullmatch(e["path"]) for e in files) or not isinstance(
            deleted := info.get("deleted", []), list) or not all(
            isinstance(rel, str) and CORPUS_FILE.fullmatch(rel) for rel in deleted):
        raise Untrusted("its manifest is not one survey writes")
    return info  # type: ignore[no-any-return]


def holds(base: Path, rel: str, digest: str) -> bool:
    """Whether base/rel holds the bytes of that digest, with no link on the way."""
    folder = os.path.dirname(rel)
    if folder and not is_folder(base / folder):
        return False
    data = read_plain(base / rel)
    return data is not None and hashlib.sha256(data).hexdigest() == digest


def is_folder(path: Path) -> bool:
    """Whether there is a folder at path (False: nothing); Untrusted if a link or a file."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(mode):
        raise Untrusted(f"{shown_path(path)} is a link or a file, not a folder")
    return True


def read_plain(path: Path, limit: int = MAX_FILE_BYTES) -> bytes | None:
    """A plain file's bytes, None if there is nothing at path. A link is not followed, and
    nothing but a plain file is read (a FIFO never answers, /dev/zero never ends)."""
    try:
        data: bytes | None = plain_bytes(path, limit)
    except FileNotFoundError:
        return None
    except NotPlain:
        data = None
    except OSError as exc:
        raise Untrusted(f"{shown_path(path)} is a link" if os.path.islink(path) else
                        f"{shown_path(path)}: {exc.strerror}") from None
    if data is None or len(data) > limit:
        raise Untrusted(f"{shown_path(path)} is not a plain file of at most {limit} bytes")
    return data


def _key(make: bool = False) -> bytes:
    """This machine's key, made on first use; empty where there is none."""
    folder = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "survey"
    path = folder / "journal-key"
    try:
        key = read_plain(path, 64)
        if key is None and make:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            part = folder / f"journal-key.{os.getpid()}"
            part.unlink(missing_ok=True)
            fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_hex(32))
            with suppress(FileExistsError):  # another command made it first: its key it is
                os.link(part, path)
            part.unlink()
            key = read_plain(path, 64)
    except (OSError, Untrusted) as exc:
        raise SurveyError(f"cannot keep survey's key in {shown_path(path)}: "
                          f"{getattr(exc, 'strerror', None) or exc}; nothing written") from None
    return key or b""
