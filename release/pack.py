#!/usr/bin/env python3
"""Packs built dlldoctor binaries into the release's files (docs/DECISIONS.md, "Releasing").

    release/pack.py --linux BINARY --windows BINARY.exe --out DIR [--version X.Y.Z] [--base-url URL]

writes into DIR:
  dlldoctor-<v>-linux-x64.tar.gz, dlldoctor-<v>-windows-x64.zip   the binary, README.md, LICENSE,
      THIRD_PARTY_NOTICES.txt, a rules/ copy to edit, the JSON schemas; one top folder each
  dlldoctor-<v>-py3-none-<tag>.whl     the binary as a console script (as ruff, cmake, ninja ship theirs):
      manylinux_<glibc>_x86_64 (the oldest glibc the binary starts on: 2_17 for the static build, which needs
      none) and win_amd64
  dlldoctor.json (Scoop), winget/*.yaml (winget's three manifests)   release/manifests/, filled in with the
      version, the zip's URL and its SHA-256
  SHA256SUMS

The same inputs give the same bytes: every entry is sorted, dated SOURCE_DATE_EPOCH (the commit's time
when not set), owned by 0, with fixed modes; gzip carries no name or time.
"""
import argparse
import base64
import gzip
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BASE_URL = "https://github.com/dlldoctor/dlldoctor/releases/download/v{version}/"
# What the binaries link (docs/DECISIONS.md, "Releasing"): the notices come from Debian's copyright files
# of the packages they were built from, so they say what was really linked.
NOTICES_COMMON = [
    ("CLI11", "libcli11-dev"),
    ("{fmt}", "libfmt-dev"),
    ("toml++", "libtomlplusplus-dev"),
    ("JSON for Modern C++ (nlohmann/json)", "nlohmann-json3-dev"),
    ("GCC's runtime libraries (libstdc++, libgcc), statically linked", "libstdc++6"),
]
NOTICES_WINDOWS = [("The mingw-w64 runtime (CRT startup, winpthreads)", "mingw-w64-common")]
BOOST = ("Boost.Filesystem (Boost Software License 1.0)", "libboost1.74-dev")
GLIBC = ("The GNU C Library (glibc), statically linked", "libc6")
LGPL = Path("/usr/share/common-licenses/LGPL-2.1")


def fail(message):
    sys.stderr.write("pack.py: " + message + "\n")
    sys.exit(2)


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(dlldoctor VERSION ([0-9.]+)", text)
    if not match:
        fail("no project(dlldoctor VERSION ...) in CMakeLists.txt")
    return match.group(1)


def source_date_epoch():
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%ct"], capture_output=True,
                             text=True, check=True).stdout.strip()
        return int(out)
    except (OSError, subprocess.CalledProcessError, ValueError):
        fail("set SOURCE_DATE_EPOCH: this is not a git checkout, and archives need a fixed date")


def copyright_text(package):
    path = Path("/usr/share/doc") / package / "copyright"
    if not path.is_file():
        fail(f"{path} is missing: install {package} (./dev.sh installs it) to write the notices")
    return path.read_text(errors="replace")


def boost_license(text):
    # Debian's Boost copyright lists every library; the licence itself is one paragraph of it.
    match = re.search(r"^License: BSL-1\.0\n( Boost Software License - Version 1\.0.*?)(?=^\S|\Z)", text, re.M | re.S)
    if not match:
        fail("the Boost Software License's text was not found in Boost's copyright file")
    return "\n".join(line[1:] if line.startswith(" ") else line for line in match.group(1).splitlines()) + "\n"


def is_static_elf(binary):
    """True when the ELF file has no program interpreter: the kernel runs it without any dynamic linker."""
    data = Path(binary).read_bytes()
    if data[:5] != b"\x7fELF\x02":
        fail(f"{binary} is not a 64-bit ELF file")
    phoff = int.from_bytes(data[0x20:0x28], "little")
    phentsize = int.from_bytes(data[0x36:0x38], "little")
    phnum = int.from_bytes(data[0x38:0x3A], "little")
    for i in range(phnum):
        start = phoff + i * phentsize
        if start + 4 > len(data):
            fail(f"{binary}: its program headers run past the end of the file")
        if int.from_bytes(data[start:start + 4], "little") == 3:  # PT_INTERP
            return False
    return True


def manylinux_tag(binary):
    """The wheel's platform tag from the binary's own needs: the newest glibc symbol version it binds."""
    if is_static_elf(binary):
        return "manylinux_2_17_x86_64"  # needs no glibc at all; 2_17 is the oldest tag pip still places
    versions = re.findall(rb"GLIBC_(\d+)\.(\d+)", Path(binary).read_bytes())
    major, minor = max(((int(a), int(b)) for a, b in versions), default=(2, 17))
    return f"manylinux_{major}_{minor}_x86_64"


def glibc_relink_note():
    # LGPL-2.1 section 6: whoever has a binary statically linked with glibc may rebuild it with a modified glibc,
    # so the notice says where the source of both is.
    try:
        version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libc6"], capture_output=True, text=True,
                                 check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        fail("dpkg-query cannot say which libc6 the binary was linked with (a Debian build machine is needed)")
    return (f"glibc's source is Debian's glibc {version} (https://sources.debian.org/src/glibc/{version}/). "
            "dlldoctor's complete source, from which this binary is built and can be relinked against a modified "
            "glibc (LGPL-2.1, section 6), is at https://github.com/dlldoctor/dlldoctor at the commit "
            "`dlldoctor --version` prints.\n\n")


def notices(binary, windows):
    parts = ["Third-party software in this dlldoctor binary\n" + "=" * 45 + "\n\n"
             "dlldoctor itself is under the MIT licence (LICENSE). The binary contains the following, each under "
             "its own licence, quoted below from the Debian packages it was built with.\n"]
    listed = NOTICES_COMMON + (NOTICES_WINDOWS if windows else [])
    for name, package in listed:
        parts.append(f"\n\n{name}\n{'-' * len(name)}\n(Debian package {package}: /usr/share/doc/{package}/copyright)\n\n")
        parts.append(copyright_text(package))
    name, package = BOOST
    parts.append(f"\n\n{name}\n{'-' * len(name)}\n\n")
    parts.append(boost_license(copyright_text(package)))
    if not windows and is_static_elf(binary):
        name, package = GLIBC
        parts.append(f"\n\n{name}\n{'-' * len(name)}\n(Debian package {package}: /usr/share/doc/{package}/copyright)\n\n")
        parts.append(glibc_relink_note())
        parts.append(copyright_text(package))
        if not LGPL.is_file():
            fail(f"{LGPL} is missing (Debian package base-files): the LGPL's text must go with glibc")
        parts.append(f"\n\n{LGPL.name}\n{'-' * len(LGPL.name)}\n\n" + LGPL.read_text())
    return "".join(parts).encode()


def release_files(binary, windows):
    """(name inside the archive, bytes, executable) for one platform, sorted by name."""
    exe = "dlldoctor.exe" if windows else "dlldoctor"
    files = [(exe, Path(binary).read_bytes(), True),
             ("README.md", (ROOT / "README.md").read_bytes(), False),
             ("LICENSE", (ROOT / "LICENSE").read_bytes(), False),
             ("THIRD_PARTY_NOTICES.txt", notices(binary, windows), False)]
    for rule in sorted((ROOT / "rules").rglob("*")):
        if rule.is_file():
            files.append(("rules/" + rule.relative_to(ROOT / "rules").as_posix(), rule.read_bytes(), False))
    for schema in sorted((ROOT / "docs").glob("*.json")):
        files.append(("schemas/" + schema.name, schema.read_bytes(), False))
    return sorted(files)


def write_tar_gz(path, top, files, epoch):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        folders = sorted({top} | {f"{top}/{n}".rsplit("/", 1)[0] for n, _, _ in files})
        for folder in folders:
            info = tarfile.TarInfo(folder)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, epoch
            tar.addfile(info)
        for name, data, executable in files:
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size, info.mode, info.mtime = len(data), 0o755 if executable else 0o644, epoch
            tar.addfile(info, io.BytesIO(data))
    with open(path, "wb") as out:
        with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=epoch, compresslevel=9) as gz:
            gz.write(raw.getvalue())


def zip_entry(name, epoch, executable):
    stamp = time.gmtime(max(epoch, 315532800))  # a zip cannot hold a date before 1980
    info = zipfile.ZipInfo(name, date_time=stamp[:6])
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # Unix, so that the mode below is read
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    return info


def write_zip(path, entries, epoch):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data, executable in entries:
            archive.writestr(zip_entry(name, epoch, executable), data)


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def write_wheel(out, version, binary, windows, epoch):
    """A wheel whose console script is the binary itself: installed into a venv's Scripts\\ or bin/."""
    tag = "win_amd64" if windows else manylinux_tag(binary)
    name = f"dlldoctor-{version}-py3-none-{tag}.whl"
    dist = f"dlldoctor-{version}.dist-info"
    script = "dlldoctor.exe" if windows else "dlldoctor"
    readme = (ROOT / "README.md").read_text()
    metadata = (f"Metadata-Version: 2.1\nName: dlldoctor\nVersion: {version}\n"
                "Summary: Explains why a Windows program cannot load its DLLs, or loads the wrong copy\n"
                "License: MIT\nRequires-Python: >=3.8\nDescription-Content-Type: text/markdown\n\n" + readme)
    wheel = f"Wheel-Version: 1.0\nGenerator: dlldoctor release/pack.py\nRoot-Is-Purelib: false\nTag: py3-none-{tag}\n"
    entries = [(f"dlldoctor-{version}.data/scripts/{script}", Path(binary).read_bytes(), True),
               (f"{dist}/METADATA", metadata.encode(), False),
               (f"{dist}/WHEEL", wheel.encode(), False),
               (f"{dist}/licenses/LICENSE", (ROOT / "LICENSE").read_bytes(), False),
               (f"{dist}/licenses/THIRD_PARTY_NOTICES.txt", notices(binary, windows), False)]
    record = ""
    for entry, data, _ in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record += f"{entry},sha256={digest},{len(data)}\n"
    record += f"{dist}/RECORD,,\n"
    entries.append((f"{dist}/RECORD", record.encode(), False))
    write_zip(out / name, entries, epoch)
    return name


def write_manifests(out, version, zip_name, zip_hash, base_url):
    """release/manifests/ (Scoop's and winget's), filled in: the version, the zip's URL and its SHA-256."""
    values = {"@VERSION@": version, "@URL@": base_url.format(version=version) + zip_name, "@SHA256@": zip_hash,
              "@SHA256_UPPER@": zip_hash.upper(), "@TOP@": f"dlldoctor-{version}-windows-x64",
              "@BASE_URL_AUTOUPDATE@": base_url.replace("{version}", "$version")}
    templates = ROOT / "release" / "manifests"
    for template in sorted(templates.rglob("*")):
        if not template.is_file():
            continue
        text = template.read_text()
        for key, value in values.items():
            text = text.replace(key, value)
        leftover = re.search(r"@[A-Z_]+@", text)
        if leftover:
            fail(f"{template}: a placeholder pack.py does not fill: {leftover.group(0)}")
        target = out / template.relative_to(templates)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--linux", required=True, help="the Linux dlldoctor binary")
    parser.add_argument("--windows", required=True, help="dlldoctor.exe")
    parser.add_argument("--out", required=True, help="the folder the release's files go to")
    parser.add_argument("--version", default=None, help="default: CMakeLists.txt's project version")
    parser.add_argument("--base-url", default=DEFAULT_BASE_URL, help="where the archives will be downloaded from")
    args = parser.parse_args()
    for binary in (args.linux, args.windows):
        if not Path(binary).is_file():
            fail(f"{binary}: no such file")
    version = args.version or project_version()
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)*", version):
        fail(f"{version!r} is not a version of numbers and dots")
    epoch = source_date_epoch()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    linux_top = f"dlldoctor-{version}-linux-x64"
    windows_top = f"dlldoctor-{version}-windows-x64"
    write_tar_gz(out / f"{linux_top}.tar.gz", linux_top, release_files(args.linux, False), epoch)
    windows_files = [(f"{windows_top}/{n}", d, x) for n, d, x in release_files(args.windows, True)]
    write_zip(out / f"{windows_top}.zip", windows_files, epoch)
    made = [f"{linux_top}.tar.gz", f"{windows_top}.zip",
            write_wheel(out, version, args.linux, False, epoch), write_wheel(out, version, args.windows, True, epoch)]
    write_manifests(out, version, f"{windows_top}.zip", sha256(out / f"{windows_top}.zip"), args.base_url)
    (out / "SHA256SUMS").write_text("".join(f"{sha256(out / name)}  {name}\n" for name in sorted(made)))
    print("\n".join(str(out / name) for name in sorted(made + ["SHA256SUMS", "dlldoctor.json", "winget"])))


if __name__ == "__main__":
    main()
