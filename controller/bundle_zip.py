"""Reading a dispute bundle's zip file without trusting it (``threecard dispute verify``).

A member whose local header and directory disagree (one file to one tool, another to the
next) fails, named; too many members, too many bytes, trailing bytes or wrong counts refuse
the bundle from its directory alone.
"""

from __future__ import annotations

import hashlib
import stat
import struct
import zipfile
import zlib
from pathlib import Path
from typing import IO

# What a damaged zip raises while read: bad header or CRC, a stream the inflater cannot
# take, a cut file, an unknown method, an encrypted member, an undecodable name.
ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError,
              NotImplementedError, RuntimeError, UnicodeDecodeError)
# Limits, in bytes inflated: a manifest is a few kilobytes; a screen a few hundred.
MAX_MANIFEST = 1 << 20
MAX_MEMBER = 64 << 20
MAX_MEMBERS = 2000
MAX_TOTAL = 1 << 30
CHUNK = 1 << 16
_LOCAL = struct.Struct("<4s5H3L2H")
_LOCAL_SIG = b"PK\x03\x04"
_END_SIG, _END64_LOCATOR = b"PK\x05\x06", b"PK\x06\x07"
_END = struct.Struct("<4s4H2LH")
_DESCRIPTOR = 0x08
# The mode bits a plain bundle file may have: nothing executable, set-id or sticky.
_PLAIN = 0o666


def too_many(path: str | Path) -> str | None:
    """Why a zip file is refused unopened: its end record counts over :data:`MAX_MEMBERS`."""
    try:
        with open(path, "rb") as f:
            size = f.seek(0, 2)
            f.seek(max(0, size - (1 << 16) - 22))
            tail = f.read()
            at = tail.rfind(_END_SIG)
            if at < 0 or len(tail) < at + 22:
                return None
            count = int.from_bytes(tail[at + 10:at + 12], "little")
            locator = at - 20
            if count == 0xFFFF and locator >= 0 and tail[locator:locator + 4] == _END64_LOCATOR:
                f.seek(int.from_bytes(tail[locator + 8:locator + 16], "little") + 32)
                count = int.from_bytes(f.read(8), "little")
    except OSError:
        return None
    if count > MAX_MEMBERS:
        return (f"{path}: its directory lists {count} members, more than a bundle ever "
                f"holds ({MAX_MEMBERS}): not read")
    return None


def _end_differs(f: IO[bytes], count: int) -> str | None:
    """Why a zip's end record is not the file's last bytes, or its counts not the directory's."""
    size = f.seek(0, 2)
    f.seek(max(0, size - (1 << 16) - _END.size))
    tail = f.read()
    at = tail.rfind(_END_SIG)
    if at < 0 or len(tail) < at + _END.size:
        return "no end record"
    _, _, _, here, total, _, _, comment = _END.unpack_from(tail, at)
    after = len(tail) - (at + _END.size + comment)
    if after:
        return (f"{after} bytes after the zip's end record (appended)" if after > 0 else
                "the zip's end record names a comment longer than the file (changed)")
    zip64 = at >= 20 and tail[at - 20:at - 16] == _END64_LOCATOR  # counts there: 0xFFFF
    if (here, total) != (count, count) and not (zip64 and here == total == 0xFFFF):
        return (f"the zip's end record counts {here} members on its disk and {total} in all, "
                f"its central directory holds {count} (changed)")
    return None


def _odd_type(info: zipfile.ZipInfo) -> str | None:
    mode = info.external_attr >> 16
    if info.is_dir() or info.external_attr & 0x10:  # a name ending in /, MS-DOS's flag
        return "a folder"
    if info.create_system != 3 or not mode:  # no Unix mode recorded: a plain file
        return None
    kind = stat.S_IFMT(mode)
    if kind not in (0, stat.S_IFREG):
        return {stat.S_IFLNK: "a symbolic link", stat.S_IFDIR: "a folder"}.get(
            kind, "a device, pipe or socket")
    if stat.S_IMODE(mode) & ~_PLAIN:
        return f"not a plain file (mode {stat.S_IMODE(mode):04o})"
    return None


def _zip64_sizes(extra: bytes, csize: int, usize: int) -> tuple[int, int]:
    at = 0
    while at + 4 <= len(extra):
        tag, n = struct.unpack_from("<2H", extra, at)
        if tag == 1:
            values = list(struct.unpack_from(f"<{n // 8}Q", extra, at + 4))
            if usize == 0xFFFFFFFF and values:
                usize = values.pop(0)
            if csize == 0xFFFFFFFF and values:
                csize = values.pop(0)
            break
        at += 4 + n
    return csize, usize


def _local_differs(f: IO[bytes], info: zipfile.ZipInfo) -> str | None:
    f.seek(info.header_offset)
    head = f.read(_LOCAL.size)
    if len(head) < _LOCAL.size or head[:4] != _LOCAL_SIG:
        return "no local header where the directory points"
    _, _, flags, method, _, _, crc, csize, usize, n, m = _LOCAL.unpack(head)
    name = f.read(n)
    extra = f.read(m)
    csize, usize = _zip64_sizes(extra, csize, usize)
    if flags & _DESCRIPTOR:  # the CRC and sizes follow the data
        f.seek(info.header_offset + _LOCAL.size + n + m + info.compress_size)
        tail = f.read(24)
        tail = tail[4:] if tail[:4] == b"PK\x07\x08" else tail
        wide = info.file_size >= 0xFFFFFFFF or info.compress_size >= 0xFFFFFFFF
        crc, csize, usize = struct.unpack_from("<LQQ" if wide else "<LLL", tail)
    raw = info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437")
    differ = [what for what, ok in (
        ("name", name == raw), ("method", method == info.compress_type),
        ("CRC", crc == info.CRC), ("compressed size", csize == info.compress_size),
        ("size", usize == info.file_size)) if not ok]
    return ", ".join(differ) or None


def members(z: zipfile.ZipFile, problems: list[str]
            ) -> dict[str, zipfile.ZipInfo | None] | None:
    """The zip's members by name from its directory, nothing inflated (None: refused).

    A member is None when its name is held twice, it is not a plain file or its header differs.
    """
    infos = z.infolist()
    try:
        end = _end_differs(z.fp, len(infos))
    except OSError as exc:
        end = f"unreadable ({exc})"
    if end:
        problems.append(f"{z.filename}: {end}: not a bundle as written, not read")
        return None
    total = sum(i.file_size for i in infos)
    if len(infos) > MAX_MEMBERS or total > MAX_TOTAL:
        problems.append(f"{z.filename}: {len(infos)} members inflating to {total} bytes, more "
                        f"than a bundle ever holds ({MAX_MEMBERS} members, {MAX_TOTAL} "
                        "bytes): not read")
        return None
    found: dict[str, zipfile.ZipInfo | None] = {}
    twice: set[str] = set()
    for info in infos:
        name = info.filename
        if name in found:
            if name not in twice:
                problems.append(f"{name}: in the bundle twice (which copy a tool shows "
                                "differs from tool to tool)")
            twice.add(name)
            found[name] = None
            continue
        why = _odd_type(info)
        try:
            differs = None if why else _local_differs(z.fp, info)
        except (OSError, struct.error) as exc:
            differs = f"unreadable ({exc})"
        if why:
            problems.append(f"{name}: {why}: a bundle holds plain files only")
        elif differs:
            problems.append(f"{name}: its local header differs from the zip's directory "
                            f"({differs}): changed")
        found[name] = None if why or differs else info
    return found


def read(z: zipfile.ZipFile, info: zipfile.ZipInfo, size: int, problems: list[str],
         keep: bool = True) -> tuple[str, bytes] | None:
    """Inflate one member in chunks, at most ``size`` bytes and one: its SHA-256 and its bytes."""
    name, digest, kept, n = info.filename, hashlib.sha256(), [], 0
    try:
        with z.open(info) as f:
            while chunk := f.read(min(CHUNK, size + 1 - n)):
                n += len(chunk)
                if n > size:
                    problems.append(f"{name}: larger than its {size} bytes (changed)")
                    return None
                digest.update(chunk)
                if keep:
                    kept.append(chunk)
    except ZIP_ERRORS as exc:
        problems.append(f"{name}: damaged in the zip file ({type(exc).__name__}: {exc})")
        return None
    return digest.hexdigest(), b"".join(kept)


__all__ = ["MAX_MANIFEST", "MAX_MEMBER", "MAX_MEMBERS", "MAX_TOTAL", "ZIP_ERRORS", "members",
           "read", "too_many"]
