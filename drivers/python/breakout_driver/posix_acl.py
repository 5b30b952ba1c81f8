"""POSIX access ACLs via the system.posix_acl_access xattr: grant one named-user entry, revoke exactly it."""
from __future__ import annotations

import errno
import os
import struct
from dataclasses import dataclass

ACL_XATTR = "system.posix_acl_access"
ACL_VERSION = 2
USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
UNDEFINED_ID = 0xFFFFFFFF
READ, WRITE, EXECUTE = 4, 2, 1
_HEADER = struct.Struct("<I")
_ENTRY = struct.Struct("<HHI")  # tag, perm, id


@dataclass(frozen=True, order=True)
class Entry:
    tag: int
    id: int  # before perm so that sorting is by tag, then id (the kernel's required order)
    perm: int


def parse(data: bytes) -> list[Entry]:
    (version,) = _HEADER.unpack_from(data)
    if version != ACL_VERSION or (len(data) - _HEADER.size) % _ENTRY.size:
        raise ValueError(f"not a version-{ACL_VERSION} POSIX ACL xattr ({len(data)} bytes)")
    return [Entry(tag, id_, perm)
            for tag, perm, id_ in _ENTRY.iter_unpack(data[_HEADER.size:])]


def serialize(entries: list[Entry]) -> bytes:
    return _HEADER.pack(ACL_VERSION) + b"".join(
        _ENTRY.pack(e.tag, e.perm, e.id) for e in sorted(entries))


def from_mode(mode: int) -> list[Entry]:
    """The minimal ACL equivalent to permission bits (what a file without the xattr has)."""
    return [Entry(USER_OBJ, UNDEFINED_ID, (mode >> 6) & 7), Entry(GROUP_OBJ, UNDEFINED_ID, (mode >> 3) & 7),
            Entry(OTHER, UNDEFINED_ID, mode & 7)]


def read_acl(path: str) -> list[Entry] | None:
    """The access ACL, or None when the file has none (only permission bits)."""
    try:
        return parse(os.getxattr(path, ACL_XATTR))
    except OSError as e:
        if e.errno == errno.ENODATA:
            return None
        raise


def write_acl(path: str, entries: list[Entry]) -> None:
    """Store entries. A minimal ACL (no named entries, no mask) makes the kernel drop the xattr and
    set the permission bits instead, which is exactly the state of a file that never had one."""
    os.setxattr(path, ACL_XATTR, serialize(entries))


@dataclass(frozen=True)
class Grant:
    """What grant() changed, so revoke() can restore it exactly."""

    path: str
    uid: int
    perms: int
    previous_perm: int | None  # the uid's own entry before the grant, if it had one
    previous_mask: int | None  # the MASK entry before the grant, None when there was none


def _group_class_union(entries: list[Entry]) -> int:
    perm = 0
    for e in entries:
        if e.tag in (GROUP_OBJ, USER, GROUP):
            perm |= e.perm
    return perm


def grant(path: str, uid: int, perms: int) -> Grant:
    """Give user `uid` the permissions `perms` (READ|WRITE|EXECUTE) on path. Adds a MASK when the
    ACL had none (required with named entries) and widens an existing mask just enough."""
    current = read_acl(path)
    if current is None:
        current = from_mode(os.stat(path).st_mode)
    prev_perm = next((e.perm for e in current if e.tag == USER and e.id == uid), None)
    mask = next((e for e in current if e.tag == MASK), None)
    entries = [e for e in current if not (e.tag == USER and e.id == uid) and e.tag != MASK]
    entries.append(Entry(USER, uid, perms))
    new_mask = (mask.perm | perms) if mask else _group_class_union(entries)
    entries.append(Entry(MASK, UNDEFINED_ID, new_mask))
    write_acl(path, entries)
    return Grant(path, uid, perms, prev_perm, mask.perm if mask else None)


def revoke(path: str, uid: int, grant: Grant | None = None) -> None:
    """Remove exactly the named-user entry of `uid`, keeping every other entry.

    With the Grant returned by grant(), the uid's previous entry and the previous mask are restored
    byte for byte. Without it, the mask is recomputed like `setfacl -x` does (union of the group
    class), and dropped when no named entry is left.
    """
    current = read_acl(path)
    if current is None:
        return
    entries = [e for e in current if not (e.tag == USER and e.id == uid) and e.tag != MASK]
    if grant is not None and grant.previous_perm is not None:
        entries.append(Entry(USER, uid, grant.previous_perm))
    named = any(e.tag in (USER, GROUP) for e in entries)
    if grant is not None and grant.previous_mask is not None:
        entries.append(Entry(MASK, UNDEFINED_ID, grant.previous_mask))
    elif named:
        entries.append(Entry(MASK, UNDEFINED_ID, _group_class_union(entries)))
    write_acl(path, entries)
