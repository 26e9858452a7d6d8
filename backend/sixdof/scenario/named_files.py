"""Files a scenario names (a timed load's `csv`, an XML load's `Csv`), read only from the
scenario file's own folder.

A scenario file may be someone else's (a download, a colleague's zip), and `sixdof serve
--scenario` sends what it reads to every watcher, so a name may reach nothing the scenario's
folder does not hold. The rules, in the order they are checked:

- the name is relative, `/` between folders: no absolute path or drive, no `..`, no `\\`;
- resolved with its symlinks, it stays inside the folder's real path (a symlink to another
  file of the folder is fine, one that leaves it is not);
- it is opened from the folder one component at a time without following a symlink
  (`O_NOFOLLOW`), so a link swapped in after the check is refused rather than followed, and
  without waiting for a writer (`O_NONBLOCK`), so a FIFO cannot hang the reader;
- what was opened is a regular file (`fstat`), not a FIFO, a device (`/dev/zero`), a socket
  or a folder;
- all the files of one scenario hold at most `MAX_NAMED_BYTES` together (at most
  `MAX_NAMED_FILES` names), counted while reading: a file that grows meanwhile is refused
  at the limit + 1 byte, not read to its end.

A refusal is a `NamedFileError` naming the name, the rule and the limit, never the file's
content; the reader of the scenario adds where the name stands (`elements[3] csv`,
`<Lib Name="Push"> Csv`).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path, PureWindowsPath

#: Bytes all the files one scenario names may hold together (100,000 rows of a table fit).
MAX_NAMED_BYTES = 8 << 20
#: Names one scenario may give (it has at most 64 elements), checked before any is opened.
MAX_NAMED_FILES = 64

RULE = (
    "a scenario's files are read from its own folder: a relative name (thrust.csv, "
    "tables/thrust.csv), no '..', no absolute path, no symlink out, a regular file"
)
_CHUNK = 64 << 10
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_OPEN_FILE = (
    os.O_RDONLY
    | getattr(os, "O_BINARY", 0)
    | _NOFOLLOW
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_OPEN_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
# Without dir_fd (Windows) the resolved path is opened whole: the check before still holds.
_WALK = os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


class NamedFileError(ValueError):
    """A name refused or a file that cannot be read: `reason` names the name and the rule,
    `loc` where the name stands in a Scenario JSON object (("elements", 3, "csv")) if known."""

    def __init__(self, reason: str, loc: tuple[str | int, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.loc = loc

    def at(self, loc: tuple[str | int, ...]) -> NamedFileError:
        return NamedFileError(self.reason, loc)


def shown(name: str) -> str:
    """The name as messages show it: as given when printable, quoted otherwise; cut at 80."""
    cut = name if len(name) <= 80 else name[:77] + "..."
    return cut if cut.isprintable() and cut.strip() == cut else repr(cut)


class NamedFiles:
    """The files one scenario names, read from `folder` under one budget of bytes."""

    def __init__(
        self, folder: str | Path, limit: int = MAX_NAMED_BYTES, max_files: int = MAX_NAMED_FILES
    ) -> None:
        self.folder = Path(folder)
        self.limit = limit
        self.left = limit
        self.max_files = max_files
        self.count = 0

    def read(self, name: object) -> bytes:
        """The bytes of the file `name`, or NamedFileError saying which rule refused it."""
        self.count += 1
        if self.count > self.max_files:
            raise NamedFileError(f"a scenario names at most {self.max_files} files")
        parts = checked_parts(name)
        data = _read(self.folder, parts, shown(str(name)), self.left, self.limit)
        self.left -= len(data)
        return data

    def read_if_any(self, name: object) -> bytes | None:
        """The bytes of the file `name` by read's rules, or None when the folder has none by
        that name (a WAMIT .1 file's optional .3 and .hst beside it)."""
        parts = checked_parts(name)
        if not os.path.lexists(os.path.join(self.folder, *parts)):
            return None
        return self.read(name)


def checked_parts(name: object) -> list[str]:
    """The folders and file of a relative name, or NamedFileError naming the rule it breaks."""
    if not isinstance(name, str):
        raise NamedFileError(f"expected a file name (a string), got {type(name).__name__}; {RULE}")
    what = shown(name)
    if "\0" in name:
        raise NamedFileError(f"{what} holds a NUL character; {RULE}")
    if "\\" in name:
        raise NamedFileError(f"{what} holds '\\'; put '/' between folders; {RULE}")
    if name.startswith("/") or PureWindowsPath(name).drive:
        raise NamedFileError(f"{what} is an absolute path; {RULE}")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise NamedFileError(f"{what} goes up a folder ('..'); {RULE}")
    if not parts:
        raise NamedFileError(f"{what} names no file; {RULE}")
    return parts


def _read(folder: Path, parts: list[str], what: str, left: int, limit: int) -> bytes:
    root = os.path.realpath(folder)
    target = os.path.realpath(os.path.join(root, *parts))
    if os.path.commonpath([root, target]) != root or target == root:
        raise NamedFileError(f"{what} leads out of the scenario's folder through a symlink; {RULE}")
    try:
        fd = _open(root, os.path.relpath(target, root).split(os.sep))
    except OSError as exc:
        raise NamedFileError(f"{what} cannot be opened: {_why(exc)}") from None
    try:
        info = os.fstat(fd)
        for test, kind in _KINDS:
            if test(info.st_mode):
                raise NamedFileError(f"{what} is {kind}, not a regular file; {RULE}")
        if not stat.S_ISREG(info.st_mode):
            raise NamedFileError(f"{what} is not a regular file; {RULE}")
        if info.st_size > left:
            raise _too_large(what, left, limit)
        chunks: list[bytes] = []
        total = 0
        while total <= left:  # st_size may lie (a file that grows): count what is read
            chunk = os.read(fd, min(_CHUNK, left + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > left:
            raise _too_large(what, left, limit)
        return b"".join(chunks)
    except OSError as exc:
        raise NamedFileError(f"{what} cannot be read: {_why(exc)}") from None
    finally:
        os.close(fd)


def _open(root: str, rel: list[str]) -> int:
    """The file at `rel` under `root`, opened without following a symlink on the way."""
    if not _WALK:
        return os.open(os.path.join(root, *rel), _OPEN_FILE)
    fd = os.open(root, _OPEN_DIR)
    try:
        for part in rel[:-1]:
            inner = os.open(part, _OPEN_DIR, dir_fd=fd)
            os.close(fd)
            fd = inner
        return os.open(rel[-1], _OPEN_FILE, dir_fd=fd)
    finally:
        os.close(fd)


def _why(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "a symlink in the way (a loop, or one put there after the check)"
    if exc.errno == errno.ENOENT:
        return "no such file in the scenario's folder"
    return exc.strerror or type(exc).__name__


def _too_large(what: str, left: int, limit: int) -> NamedFileError:
    others = "" if left == limit else f" ({limit - left:,} taken by the files named before it)"
    return NamedFileError(
        f"{what} holds more than {left:,} bytes; the files one scenario names hold at most "
        f"{limit:,} bytes together{others}"
    )
