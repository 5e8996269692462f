"""Put llama.cpp's prebuilt shared libraries where llama-cpp-python's server can load them.

llama-cpp-python is installed without compiling llama.cpp (`-DLLAMA_BUILD=OFF`); the libraries
come prebuilt from the `llama-cpp-py-sync` wheel, pinned to the llama.cpp build whose C API
matches that llama-cpp-python release. Run with the server's Python:
`python tests/llama_cpp/prepare_libs.py DEST`; then `LLAMA_CPP_LIB_PATH=DEST`.

The wheel is built against glibc 2.38 but only calls its C23 `strtol`/`sscanf` entry points
from it. On an older glibc (Debian 12 has 2.36) the libraries' requirement of that glibc
version is marked weak and `libc23compat.so` supplies the five functions (load it with
LD_PRELOAD); their C23 change, binary `0b` literals, does not matter to llama.cpp here.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

SHT_GNU_VERNEED = 0x6FFFFFFE
VER_FLG_WEAK = 0x2
NEW_GLIBC = b"GLIBC_2.38"
SHIM = "libc23compat.so"
SHIM_SOURCE = r"""
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
long __isoc23_strtol(const char *s, char **end, int base) { return strtol(s, end, base); }
long long __isoc23_strtoll(const char *s, char **end, int base) { return strtoll(s, end, base); }
unsigned long __isoc23_strtoul(const char *s, char **end, int base) { return strtoul(s, end, base); }
unsigned long long __isoc23_strtoull(const char *s, char **end, int base) { return strtoull(s, end, base); }
int __isoc23_sscanf(const char *s, const char *format, ...) {
    va_list args;
    va_start(args, format);
    int n = vsscanf(s, format, args);
    va_end(args);
    return n;
}
"""


def weaken_version(path: Path, version: bytes = NEW_GLIBC) -> int:
    """Mark `version` as a weak requirement in an ELF64 library; how many entries changed."""
    data = bytearray(path.read_bytes())
    (section_offset,) = struct.unpack_from("<Q", data, 0x28)
    entry_size, count = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, section_offset + i * entry_size) for i in range(count)]
    changed = 0
    for _name, kind, _flags, _addr, offset, _size, link, info, _align, _entsize in sections:
        if kind != SHT_GNU_VERNEED:
            continue
        strings = sections[link][4]
        need = offset
        for _ in range(info):
            _ver, aux_count, _file, aux_offset, next_need = struct.unpack_from("<HHIII", data, need)
            aux = need + aux_offset
            for _ in range(aux_count):
                _hash, flags, _other, name, next_aux = struct.unpack_from("<IHHII", data, aux)
                start = strings + name
                if data[start:data.index(b"\0", start)] == version:
                    struct.pack_into("<H", data, aux + 4, flags | VER_FLG_WEAK)
                    changed += 1
                aux += next_aux
            need += next_need
    if changed:
        path.write_bytes(bytes(data))
    return changed


def _glibc_older_than_238() -> bool:
    name, _, version = os.confstr("CS_GNU_LIBC_VERSION").partition(" ")  # "glibc 2.36"
    major, minor = (int(part) for part in version.split(".")[:2])
    return name == "glibc" and (major, minor) < (2, 38)


def prepare(dest: Path) -> None:
    spec = find_spec("llama_cpp_py_sync")
    if spec is None or spec.origin is None:
        sys.exit("llama-cpp-py-sync is not installed in this Python")
    source = Path(spec.origin).parent
    dest.mkdir(parents=True, exist_ok=True)
    for library in source.glob("lib*.so*"):
        shutil.copy2(library, dest / library.name)
    (dest / SHIM).unlink(missing_ok=True)
    if _glibc_older_than_238():
        for library in dest.glob("lib*.so*"):
            weaken_version(library)
        c_file = dest / "libc23compat.c"
        c_file.write_text(SHIM_SOURCE)
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(dest / SHIM), str(c_file)], check=True)
    print(f"llama.cpp libraries ready in {dest}")


if __name__ == "__main__":
    prepare(Path(sys.argv[1]))
