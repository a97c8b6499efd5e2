#!/usr/bin/env python3
"""Writes the C:\\ of a machine that went through several CUDA, cuDNN and Python installs, for
bench/check.sh: what `dlldoctor check` reads (System32 and its driver store, three CUDA toolkits, cuDNN in
every layout users have, eight Pythons with torch and onnxruntime-gpu) amid what it must never walk
(a System32 of 3,000 files, a Program Files and a Users tree of 40,000 files in 4,000 folders).
Usage: make_check_drive.py FIXTURES OUT   (the drive in OUT/c, a manifest in OUT/manifest.json)"""
import json
import os
import random
import shutil
import sys

fixtures, out = sys.argv[1], sys.argv[2]
drive = os.path.join(out, "c")
shutil.rmtree(drive, ignore_errors=True)
random.seed(40)


def put(rel, fixture):
    path = os.path.join(drive, *rel.split("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shutil.copyfile(os.path.join(fixtures, fixture), path)


def text(rel, content):
    path = os.path.join(drive, *rel.split("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(content)


CUDNN9 = ["cudnn64_9.dll", "cudnn_graph64_9.dll", "cudnn_ops64_9.dll", "cudnn_cnn64_9.dll", "cudnn_adv64_9.dll",
          "cudnn_engines_precompiled64_9.dll", "cudnn_engines_runtime_compiled64_9.dll", "cudnn_heuristic64_9.dll"]
HEADER = "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n"

for name in ["nvcuda.dll", "msvcp140.dll", "vcruntime140.dll"]:
    put("Windows/System32/" + name, "x64/" + name)
for i in range(3000):  # what a real System32 holds besides
    text(f"Windows/System32/file{i:04}.dll", "")
for package in ["nv_dispi.inf_amd64_0123", "nv_dispi.inf_amd64_4567"]:
    put(f"Windows/System32/DriverStore/FileRepository/{package}/nvcuda64.dll", "x64/nvcuda.dll")
for version, cudart, bins in [("v11.8", "cudart64_110.dll", "bin"), ("v12.4", "cudart64_12.dll", "bin"),
                              ("v13.0", "cudart64_13.dll", "bin/x64")]:
    root = f"Program Files/NVIDIA GPU Computing Toolkit/CUDA/{version}"
    put(f"{root}/{bins}/{cudart}", "x64/" + cudart)
    if version == "v12.4":
        put(f"{root}/bin/cublas64_12.dll", "x64/cublas64_12.dll")
        put(f"{root}/bin/cublasLt64_12.dll", "x64/cublasLt64_12.dll")
# cuDNN in each layout: the 9.1 zip on PATH, a newer zip's bin\x64, the installer's bin\<cuda>\x64, a stale
# dispatcher in the toolkit's bin, an 8.x cuda\ zip.
for folder in ["tools/cudnn-9.1/bin", "tools/cudnn-9.20/bin/x64", "Program Files/NVIDIA/CUDNN/v9.1/bin/12.4/x64",
               "Program Files/NVIDIA/CUDNN/v9.1/bin/11.8/x64"]:
    for dll in CUDNN9:
        put(f"{folder}/{dll}", "x64/" + dll)
text("tools/cudnn-9.1/include/cudnn_version.h", HEADER)
text("Program Files/NVIDIA/CUDNN/v9.1/include/12.4/cudnn_version.h", HEADER)
put("Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin/cudnn64_9.dll", "x64/cudnn-9.0/cudnn64_9.dll")
put("tools/cudnn-8.9/cuda/bin/cudnn64_8.dll", "x64/cudnn64_8.dll")

pythons = ["Python311", "Python312", "ProgramData/miniconda3", "ProgramData/miniconda3/envs/gpu",
           "ProgramData/miniconda3/envs/ort", "Users/ana/AppData/Local/Programs/Python/Python310",
           "Users/ana/miniconda3", "Users/ana/miniconda3/envs/train"]
for i, prefix in enumerate(pythons):
    put(f"{prefix}/python.exe", "x64/marker_app.exe")
    put(f"{prefix}/marker.dll", "x64/marker.dll")
    if "conda" in prefix:
        text(f"{prefix}/conda-meta/history", "==> 2026-01-01 00:00:00 <==\n")
    site = f"{prefix}/Lib/site-packages"
    if i % 2 == 0:
        text(f"{site}/torch/version.py", "__version__ = '2.5.1+cu124'\ncuda: Optional[str] = '12.4'\n")
        put(f"{site}/torch/_C.cp311-win_amd64.pyd", "x64/marker.dll")
        for dll in CUDNN9 + ["cudart64_12.dll"]:
            put(f"{site}/torch/lib/{dll}", "x64/" + dll)
    else:
        text(f"{site}/onnxruntime/__init__.py", '__version__ = "1.20.1"\n')
        put(f"{site}/onnxruntime/capi/onnxruntime_pybind11_state.pyd", "x64/marker.dll")
        put(f"{site}/onnxruntime/capi/onnxruntime_providers_shared.dll", "x64/marker.dll")
        put(f"{site}/onnxruntime/capi/onnxruntime_providers_cuda.dll", "x64/cublas64_12.dll")
        put(f"{site}/onnxruntime/capi/cublasLt64_12.dll", "x64/cublasLt64_12.dll")
text("Users/ana/NTUSER.DAT", "")
# What check must never walk: 40,000 files in 4,000 folders.
files = 0
for i in range(4000):
    top = random.choice(["Program Files/Vendor", "Users/ana/Documents", "ProgramData/Cache", "Games"])
    for j in range(10):
        text(f"{top}/d{i // 100}/e{i}/f{j}.txt", "")
        files += 1
with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump({"pythons": len(pythons), "filler_files": files}, f)
