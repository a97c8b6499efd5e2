#!/usr/bin/env python3
"""Writes the crafted files of bench/hostile.sh (issue 28): small PE files whose tables would make a reader
that trusts them spend memory out of all proportion to their size.

  export_names_bomb.dll     2^20 export name pointers, all at one 4,095-byte name (6 MB; before the
                            names' byte budget it cost 4.3 GB in `inspect`)
  export_functions_max.dll  2^20 export address table entries, no names (4 MB): the largest table the
                            reader's limits take, each entry an item of the model
  export_names_endless.dll  2^20 export name pointers, all at one 64 KiB stretch of letters that runs to
                            the end of the section without a NUL (6.4 MB): each name scan finds no end

usage: make_hostile.py OUT_DIR
"""
import os
import struct
import sys

SECTION_RVA = 0x1000
RAW_AT = 0x400


def pe32plus_dll(section: bytes, export_size: int) -> bytes:
    raw_size = (len(section) + 0x1FF) // 0x200 * 0x200
    virtual_size = (len(section) + 0xFFF) // 0x1000 * 0x1000
    dos = b"MZ" + b"\0" * 58 + struct.pack("<I", 0x40)
    coff = struct.pack("<HHIIIHH", 0x8664, 1, 0, 0, 0, 240, 0x2022)
    directories = [(0, 0)] * 16
    directories[0] = (SECTION_RVA, export_size)
    optional = struct.pack("<HBBIIIIIQIIHHHHHHIIIIHHQQQQII", 0x20B, 14, 0, raw_size, 0, 0, 0, SECTION_RVA,
                           0x180000000, 0x1000, 0x200, 6, 0, 0, 0, 6, 0, 0, SECTION_RVA + virtual_size, RAW_AT,
                           0, 3, 0x160, 0x100000, 0x1000, 0x100000, 0x1000, 0, 16)
    optional += b"".join(struct.pack("<II", rva, size) for rva, size in directories)
    header = struct.pack("<8sIIIIIIHHI", b".edata", virtual_size, SECTION_RVA, raw_size, RAW_AT, 0, 0, 0, 0,
                         0x40000040)
    head = dos + b"PE\0\0" + coff + optional + header
    return head.ljust(RAW_AT, b"\0") + section.ljust(raw_size, b"\0")


def exports(functions: int, names: int, endless: bool = False) -> bytes:
    name_at = 40
    dll_name = b"hostile.dll\0"
    functions_at = (name_at + len(dll_name) + 3) // 4 * 4
    names_at = functions_at + 4 * functions
    ordinals_at = names_at + 4 * names
    long_name_at = ordinals_at + 2 * names
    long_name = b"A" * 4095 + b"\0"
    if endless:  # letters up to a 512-byte boundary, so that no padding ends them
        long_name = b"A" * ((-(long_name_at + 65536)) % 0x200 + 65536)
    directory = struct.pack("<IIHHIIIIIII", 0, 0, 0, 0, SECTION_RVA + name_at, 1, functions, names,
                            SECTION_RVA + functions_at, SECTION_RVA + names_at, SECTION_RVA + ordinals_at)
    body = bytearray(directory + dll_name)
    body += b"\0" * (functions_at - len(body))
    body += struct.pack("<I", 0x2000) * functions  # outside the export directory: code, not forwarders
    body += struct.pack("<I", SECTION_RVA + long_name_at) * names
    body += b"\0\0" * names
    body += long_name
    return bytes(body)


def main() -> None:
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, section in (("export_names_bomb.dll", exports(1, 1 << 20)),
                          ("export_functions_max.dll", exports(1 << 20, 0)),
                          ("export_names_endless.dll", exports(1, 1 << 20, endless=True))):
        with open(os.path.join(out, name), "wb") as f:
            f.write(pe32plus_dll(section, 40))


if __name__ == "__main__":
    main()
