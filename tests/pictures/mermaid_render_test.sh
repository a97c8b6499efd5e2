#!/usr/bin/env bash
# The Mermaid block of the Markdown report draws: Mermaid itself (the npm package's bundled
# dist/mermaid.min.js, loaded from a local file) renders the block in headless Chromium, for the bundled
# example and for a copy of it under a folder whose name Mermaid must escape. A diagram with a syntax
# error is rendered too, and must fail: the check can tell.
# Without npm, the registry or Chromium this exits 77 with a "skipped" line (CTest: skipped; label
# needs-npm-registry, which .ci/check_skips.py accepts).
#   mermaid_render_test.sh DLLDOCTOR EXAMPLE_DIR CACHE_DIR WORK_DIR
set -euo pipefail
usage="usage: mermaid_render_test.sh DLLDOCTOR EXAMPLE_DIR CACHE_DIR WORK_DIR"
dlldoctor=${1:?$usage}
example=${2:?$usage}
cache=${3:?$usage}
work=${4:?$usage}
support=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
mermaid=mermaid@12.3.0
tarball=mermaid-12.3.0.tgz

skip() {
  echo "skipped, $1"
  exit 77
}
command -v chromium >/dev/null 2>&1 || skip "missing: chromium (Debian package chromium; ./dev.sh test installs it)"
command -v npm >/dev/null 2>&1 || skip "no npm on this machine: the npm registry cannot be reached"
mkdir -p "$cache"
if [ ! -s "$cache/$tarball" ]; then
  (cd "$cache" && timeout 300 npm pack "$mermaid" --silent >/dev/null 2>npm.err) ||
    skip "the npm registry did not answer (npm pack $mermaid: $(tail -n 1 "$cache/npm.err" 2>/dev/null))"
fi
rm -rf "$work"
mkdir -p "$work"
tar xzf "$cache/$tarball" -C "$work" package/dist/mermaid.min.js

# render NAME MARKDOWN_OR_DIAGRAM_FILE: writes $work/NAME.dom, the page after Mermaid ran.
render() {
  python3 - "$2" "$work/$1.html" <<'PY'
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
block = re.search(r"```mermaid\n(.*?)```\n", text, re.S)
diagram = block.group(1) if block else text
page = """<!doctype html><html><head><meta charset="utf-8"></head><body>
<div id="status">pending</div><div id="picture"></div>
<script src="package/dist/mermaid.min.js"></script>
<script>
const text = %s;
mermaid.initialize({startOnLoad: false, securityLevel: "strict"});
mermaid.parse(text)
  .then(() => mermaid.render("drawn", text))
  .then(result => {
    document.getElementById("picture").innerHTML = result.svg;
    document.getElementById("status").textContent = "rendered";
  })
  .catch(error => { document.getElementById("status").textContent = "error: " + error; });
</script></body></html>""" % json.dumps(diagram)
open(sys.argv[2], "w", encoding="utf-8").write(page)
PY
  # No network: the page has only local files, and a proxy that does not exist catches any other fetch.
  timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --proxy-server=127.0.0.1:9 \
    --virtual-time-budget=15000 --dump-dom "file://$work/$1.html" >"$work/$1.dom" 2>"$work/$1.err" ||
    { echo "FAIL: chromium did not load $work/$1.html"; tail -n 5 "$work/$1.err"; exit 1; }
}

dom_prelude=$(cat <<'PY'
import re
dom = open(args[0], encoding="utf-8").read()
status = re.search(r'<div id="status">([^<]*)</div>', dom).group(1)
nodes = re.findall(r'<g class="node [^"]*" id="drawn-flowchart-n\d+-\d+"', dom)
PY
)
failures=0
# check NAME PYTHON_ASSERTIONS: `dom` is the rendered page, `status` the page's verdict on the drawing.
check() {
  local status=0
  python3 "$support/expect.py" "$dom_prelude" "$2" "$work/$1.dom" || status=$?
  if [ "$status" -eq 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi
}

report() {  # PROGRAM OUT.md
  local status=0
  "$dlldoctor" "$1" --path "$example/cuda/bin" --path "$example/cudnn/bin" --format markdown -o "$2" || status=$?
  [ "$status" -eq 1 ] || { echo "FAIL: dlldoctor exited $status on $1"; exit 1; }
  grep -q '^```mermaid$' "$2" || { echo "FAIL: no mermaid block in $2"; exit 1; }
}

report "$example/app/app.exe" "$work/example.md"
render example "$work/example.md"
check example '
expect(status == "rendered", "Mermaid did not draw the block: " + status)
expect(len(nodes) == 8, f"8 nodes drawn (program, old copy, 5 missing siblings, the copy that lost), not {len(nodes)}")
expect(sorted(set(re.findall(r"cudnn_\w+64_9\.dll", dom))) == ["cudnn_adv64_9.dll", "cudnn_cnn64_9.dll",
       "cudnn_engines_precompiled64_9.dll", "cudnn_engines_runtime_compiled64_9.dll", "cudnn_heuristic64_9.dll"],
       "the five missing siblings, and no sibling that loads")
expect("NOT FOUND" in dom, "NOT FOUND labels")
expect("shadowed [path]" in dom, "the copy that lost, with its step")
expect("fill:#ffebee" in dom.replace(" ", ""), "the missing DLLs red")
'

# Every character Mermaid or Markdown reads as syntax, in the program's folder (a PATH entry cannot
# hold the ';' of an entity, so the DLLs stay where they are).
hostile="$work/we\"ird #35; <b>x</b> & \`tick\` | pipe"
mkdir -p "$hostile"
cp -r "$example/app/." "$hostile/"
report "$hostile/app.exe" "$work/hostile.md"
render hostile "$work/hostile.md"
check hostile '
expect(status == "rendered", "Mermaid did not draw the block of the hostile folder: " + status)
expect(len(nodes) == 8, f"8 nodes, not {len(nodes)}")
expect("we&quot;ird #35; &lt;b&gt;x&lt;/b&gt; &amp; `tick` | pipe" in dom or "we\"ird #35; &lt;b&gt;x&lt;/b&gt; &amp; `tick` | pipe" in dom,
       "the folder name shown as written, not as markup")
expect("<b>x</b>" not in dom, "no markup from a folder name")
'

# The harness can fail: a block with a syntax error is not drawn.
printf 'flowchart LR\n  n0["unclosed\n  n0 --> \n' >"$work/broken.mmd"
render broken "$work/broken.mmd"
check broken '
expect(status.startswith("error"), "a broken block must not render: " + status)
'

[ "$failures" -eq 0 ] || { echo "$failures Mermaid check(s) failed"; exit 1; }
echo "Mermaid draws the Markdown report's picture"
