#!/usr/bin/python3
"""Generate the folder tree bench/scan.sh walks.

Usage: make_scan_tree.py FIXTURES_DIR OUT_DIR

Writes OUT_DIR/tree (the tree) and, last, OUT_DIR/manifest.json (the marker:
what the tree holds, so scan.sh can check dlldoctor's answer).  A rerun with a
manifest present does nothing; scan.sh deletes the manifest when this script
is newer than it.

The tree (fixed seed, so every machine gets the same one):
  * 16,000 folders under tree/ (tree/ itself included), a random recursive
    tree: each new folder goes under a folder picked at random among those
    made so far, which gives depths from 1 to about 20.
  * 200,000 files, of which 4,000 are PE files copied from FIXTURES_DIR/x64
    and x86 (the small fixture DLLs, ~5-60 KB each):
      - cuDNN copies at random depths: cudnn64_9.dll (9.1), cudnn_ops64_9.dll,
        cudnn64_8.dll and the 9.0 cudnn64_9.dll (x64/cudnn-9.0/); a third of
        them are hard links (os.link) to another copy of the same name,
      - a few "<name>.dll.bak" copies (dlldoctor reports them as backups,
        `find -iname '*.dll'` does not list them),
      - the rest: any fixture DLL, x64 or x86, under its own name or a made-up
        one ("plugin_0042.dll"), one in ten with an upper-case ".DLL".
  * the other 196,000 files: 0-700 bytes of text with assorted extensions
    (.py, .txt, .json, .h, .so, .lib, .pdb, .manifest, ...), never PE.
One process, no subprocesses: about 10 s on the 2-core bench VM.
"""
import json
import os
import random
import shutil
import sys

FOLDERS = 16_000
FILES = 200_000
PE_FILES = 4_000
# (source under FIXTURES_DIR, name in the tree, copies); a third are hard links.
CUDNN = [
    ("x64/cudnn64_9.dll", "cudnn64_9.dll", 60),
    ("x64/cudnn_ops64_9.dll", "cudnn_ops64_9.dll", 60),
    ("x64/cudnn64_8.dll", "cudnn64_8.dll", 45),
    ("x64/cudnn-9.0/cudnn64_9.dll", "cudnn64_9.dll", 45),
]
BACKUPS = [("x64/cudnn64_9.dll", "cudnn64_9.dll.bak", 6),
           ("x64/cudnn-9.0/cudnn64_9.dll", "cudnn64_9.dll.bak", 3),
           ("x64/zlibwapi.dll", "zlibwapi.dll.bak", 3)]
FOLDER_WORDS = ["lib", "bin", "site-packages", "torch", "cuda", "nvidia", "plugins", "data", "cache",
                "x64", "Release", "share", "include", "models", "tools", "vendor", "node_modules",
                "assets", "backup", "tmp", "Program Files", "dist", "build", "docs"]
MADE_UP = ["plugin", "Qt5Core", "libcrypto", "avcodec", "python3", "opencv_world", "ggml", "onnxruntime",
           "tbb", "libiomp5md", "steam_api", "d3dcompiler", "helper", "ext", "mod"]
EXTENSIONS = ["py", "pyc", "txt", "json", "h", "hpp", "c", "cpp", "so", "lib", "pdb", "manifest", "xml",
              "md", "png", "ini", "cfg", "log", "pyd.txt", "dll.txt", "dat", "html", "js", "csv"]


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(f"usage: {argv[0]} FIXTURES_DIR OUT_DIR\n")
        return 2
    fixtures, out = argv[1], argv[2]
    manifest_path = os.path.join(out, "manifest.json")
    if os.path.exists(manifest_path):
        return 0
    tree = os.path.join(out, "tree")
    if os.path.exists(tree):
        shutil.rmtree(tree)
    rng = random.Random(20261129)

    # --- folders ---
    folders = [tree]
    depth = {tree: 0}
    os.makedirs(tree)
    for i in range(1, FOLDERS):
        parent = rng.choice(folders)
        path = os.path.join(parent, f"{rng.choice(FOLDER_WORDS)}_{i}")
        os.mkdir(path)
        folders.append(path)
        depth[path] = depth[parent] + 1
    names_in = {f: set() for f in folders}

    def place(name):
        """A random folder where `name` is still free."""
        while True:
            folder = rng.choice(folders)
            if name.lower() not in names_in[folder]:
                names_in[folder].add(name.lower())
                return os.path.join(folder, name)

    blobs = {}

    def blob(rel):
        if rel not in blobs:
            with open(os.path.join(fixtures, rel), "rb") as f:
                blobs[rel] = f.read()
        return blobs[rel]

    def write(path, data):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, data)
        os.close(fd)

    pe = []          # relative paths of every PE file
    links = []       # [first path, hard link, ...] per linked file
    backups = []

    # --- cuDNN copies, a third of them hard links ---
    for rel, name, copies in CUDNN:
        primaries = []
        for k in range(copies):
            path = place(name)
            if k % 3 == 2:
                group = rng.choice(primaries)
                os.link(group[0], path)
                group.append(path)
            else:
                write(path, blob(rel))
                primaries.append([path])
            pe.append(path)
        links.extend(g for g in primaries if len(g) > 1)
    for rel, name, copies in BACKUPS:
        for _ in range(copies):
            path = place(name)
            write(path, blob(rel))
            pe.append(path)
            backups.append(path)

    # --- the rest of the PE files ---
    sources = sorted(
        os.path.relpath(os.path.join(d, n), fixtures)
        for arch in ("x64", "x86")
        for d, _, ns in os.walk(os.path.join(fixtures, arch))
        for n in ns if n.lower().endswith(".dll"))
    serial = 0
    while len(pe) < PE_FILES:
        rel = rng.choice(sources)
        if rng.random() < 0.5:
            name = os.path.basename(rel)
        else:
            serial += 1
            name = f"{rng.choice(MADE_UP)}_{serial:04d}.dll"
        if rng.random() < 0.1:
            name = name[:-4] + ".DLL"
        path = place(name)
        write(path, blob(rel))
        pe.append(path)

    # --- everything else: small text files ---
    filler = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz \n") for _ in range(4096))
    for i in range(FILES - len(pe)):
        name = f"f{i}.{rng.choice(EXTENSIONS)}"
        path = place(name)
        start = rng.randrange(0, 3000)
        write(path, filler[start:start + rng.randrange(0, 700)])

    rel = lambda p: os.path.relpath(p, tree)
    manifest = {
        "folders": len(folders),
        "files": FILES,
        "pe_files": len(pe),
        "dll_named": sum(1 for p in pe if p.lower().endswith(".dll")),
        "backups": sorted(rel(p) for p in backups),
        "hard_links": [sorted(rel(p) for p in g) for g in links],
        "max_depth": max(depth.values()),
    }
    tmp = manifest_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
    os.replace(tmp, manifest_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
