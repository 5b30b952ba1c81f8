"""Confined host file access for the fs ops: inside the writable roots only (after resolving symlinks), never a deny_read path."""
from __future__ import annotations

import os
import stat
from typing import Iterable

MAX_READ = 64 * 1024 * 1024
MAX_DENY_WALK = 10000  # inodes collected below deny directories per fs op


class Confinement:
    """Opens files for write_file/read_file only below one of `roots`, and never at or below a
    `deny` path (deny wins).

    The path is resolved first like the kernel would (os.path.realpath: symlinks, `..` after
    each hop, /proc/self/root and /proc/self/cwd), and the *resolved* path must lie below a
    resolved root and outside every resolved deny path; a symlink inside the workspace that
    points inside it works, one that points out is refused wherever it sits in the chain, a
    dangling one by where it would land. Then, race-free, the resolved path is opened by a walk
    that starts at an fd of the root and opens each component with O_NOFOLLOW relative to the
    previous fd: a component swapped for a symlink after the resolution is refused (ELOOP/ENOTDIR)
    instead of followed — the openat2(RESOLVE_BENEATH) idea in user space. Deny paths are also
    compared by (st_dev, st_ino) of every directory on the walk and of the file itself, which
    catches a deny file reached through another name (hard link, bind mount).
    """

    def __init__(self, roots: Iterable[str], deny: Iterable[str] = ()) -> None:
        self.roots = [os.path.realpath(r) for r in roots]
        self.deny = list(deny)

    # -- public ---------------------------------------------------------------------------------

    def write_text(self, path: str, content: str) -> None:
        data = content.encode("utf-8")
        fd = self._open(path, write=True)
        try:
            os.ftruncate(fd, 0)
            os.set_blocking(fd, True)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)

    def read_text(self, path: str, max_bytes: int = MAX_READ) -> str:
        fd = self._open(path, write=False)
        try:
            os.set_blocking(fd, True)
            chunks, size = [], 0
            while size <= max_bytes:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            if size > max_bytes:
                raise ValueError(f"{path}: larger than {max_bytes} bytes")
            return b"".join(chunks).decode("utf-8", errors="replace")
        finally:
            os.close(fd)

    # -- the walk ---------------------------------------------------------------------------------

    def _denied_ids(self) -> tuple[set[tuple[int, int]], bool]:
        """(st_dev, st_ino) of every deny path and of every file below a denied directory (a hard
        link in the workspace is another name of the same inode), and whether that list is
        complete (False past MAX_DENY_WALK entries: then any file with several links is refused)."""
        ids: set[tuple[int, int]] = set()
        complete = True
        for p in self.deny:
            try:
                st = os.stat(p)  # follow: a denied symlink protects its target
            except OSError:
                continue
            ids.add((st.st_dev, st.st_ino))
            if not stat.S_ISDIR(st.st_mode):
                continue
            for top, dirs, files in os.walk(os.path.realpath(p)):
                for name in dirs + files:
                    try:
                        est = os.lstat(os.path.join(top, name))
                    except OSError:
                        continue
                    ids.add((est.st_dev, est.st_ino))
                if len(ids) > MAX_DENY_WALK:
                    complete = False
                    break
        return ids, complete

    def _split(self, path: str) -> tuple[str, list[str]]:
        if not os.path.isabs(path) or "\0" in path:
            raise PermissionError(f"{path}: not an absolute path")
        if path.endswith("/"):  # names a directory; these ops take regular files only
            raise NotADirectoryError(f"{path}: a trailing '/' names a directory")
        real = os.path.realpath(path)  # resolves every symlink and '..' in order, as open(2) would
        parts = [p for p in real.split("/") if p]
        best: list[str] | None = None
        best_root = ""
        for root in self.roots:
            rparts = [p for p in root.split("/") if p]
            if parts[:len(rparts)] == rparts and len(parts) > len(rparts):
                if best is None or len(rparts) > len(best):
                    best, best_root = rparts, root
        if best is None:
            raise PermissionError(f"{path}: outside the session's writable roots")
        return best_root, parts[len(best):]

    def _open(self, path: str, *, write: bool) -> int:
        root, rest = self._split(path)
        denied, complete = self._denied_ids()
        real = os.path.join(root, *rest)
        for d in self.deny:  # the resolved path under a denied tree (also a root inside one) is denied
            real_d = os.path.realpath(d)
            if os.path.commonpath([real, real_d]) == real_d:
                raise PermissionError(f"{path}: under deny_read path {d}")
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the root itself is trusted
        try:
            for name in rest[:-1]:
                self._check(fd, denied, path)
                nfd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
                os.close(fd)
                fd = nfd
            self._check(fd, denied, path)
            # O_NONBLOCK: opening a FIFO planted by the sandbox must not hang the driver.
            flags = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
            flags |= (os.O_WRONLY | os.O_CREAT) if write else os.O_RDONLY
            ffd = os.open(rest[-1], flags, 0o644, dir_fd=fd)
        finally:
            os.close(fd)
        try:
            st = os.fstat(ffd)
            if not stat.S_ISREG(st.st_mode):
                raise PermissionError(f"{path}: not a regular file")
            if (st.st_dev, st.st_ino) in denied:
                raise PermissionError(f"{path}: is a deny_read file")
            if (write or not complete) and st.st_nlink > 1:  # another name may live outside the roots
                raise PermissionError(f"{path}: has several hard links")
        except BaseException:
            os.close(ffd)
            raise
        return ffd

    @staticmethod
    def _check(fd: int, denied: set[tuple[int, int]], path: str) -> None:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) in denied:
            raise PermissionError(f"{path}: under a deny_read path")
