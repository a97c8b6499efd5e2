#!/usr/bin/env bash
# --format html: one self-contained page, read in a real browser. Headless Chromium (Debian's) loads
# the bundled example's report with no network (a proxy to nowhere; the page's own policy forbids
# fetching anything), and the rendered DOM is checked: the verdict, a red node for a missing DLL, the
# modules table and its filter (driven by the page's #filter= address), the copy buttons; a screenshot
# goes into the work folder. The same for --scan's page: copies grouped by DLL and version, filtered.
# Without Chromium this exits 77 with a "skipped" line (CTest: skipped; CI refuses that skip, since
# ./dev.sh test installs chromium).
#   html_report_test.sh DLLDOCTOR EXAMPLE_DIR WORK_DIR
set -euo pipefail
usage="usage: html_report_test.sh DLLDOCTOR EXAMPLE_DIR WORK_DIR"
dlldoctor=${1:?$usage}
example=${2:?$usage}
work=${3:?$usage}
support=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)
if ! command -v chromium >/dev/null 2>&1; then
  echo "skipped, missing: chromium (Debian package chromium: apt-get install chromium; ./dev.sh test installs it)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"

browser() {  # chromium's headless flags; no network
  timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --proxy-server=127.0.0.1:9 \
    --virtual-time-budget=5000 "$@" 2>>"$work/chromium.err"
}

html_prelude=$(cat <<'PY'
import re
dom = open(args[0], encoding="utf-8").read()
def rows(table):
    body = re.search(r'<table id="%s">(.*?)</table>' % table, dom, re.S).group(1)
    return re.findall(r"<tr( [^>]*)?>(.*?)</tr>", body, re.S)
def visible(table):
    return [cells for attrs, cells in rows(table) if "hidden" not in (attrs or "") and "<th" not in cells]
PY
)
failures=0
# check NAME DOM_FILE PYTHON_ASSERTIONS: `dom` is the page as the browser left it.
check() {
  local status=0
  python3 "$support/expect.py" "$html_prelude" "$3" "$2" || status=$?
  if [ "$status" -eq 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi
}

report=$work/report.html
status=0
"$dlldoctor" "$example/app/app.exe" --path "$example/cuda/bin" --path "$example/cudnn/bin" --format html -o "$report" ||
  status=$?
[ "$status" -eq 1 ] || { echo "FAIL: dlldoctor --format html exited $status, not 1"; exit 1; }

# Self-contained: nothing is fetched, whatever the browser.
check "self-contained" "$report" '
expect("Content-Security-Policy" in dom and "default-src '"'"'none'"'"'" in dom, "a policy that forbids fetching")
expect(not re.search(r"<(script|img|link|iframe)[^>]+(src|href)=", dom), "no external script, image, style or frame")
# The one kind of address: a link (never fetched) from each finding to its page in docs/findings/.
pages = re.findall(r"<a href=\"(https://[^\"]*)\">", dom)
expect(pages and all(re.fullmatch(r"https://github\.com/dlldoctor/dlldoctor/blob/main/docs/findings/[a-z0-9-]+\.md", p) for p in pages),
       "links to the finding pages only: %s" % pages)
rest = re.sub(r"<a href=\"https://github\.com/dlldoctor/dlldoctor/blob/main/docs/findings/[a-z0-9-]+\.md\">", "", dom)
expect("http://" not in rest and "https://" not in rest, "no other address of the network")
'

browser --dump-dom "file://$report" >"$work/report.dom"
check "the report as rendered" "$work/report.dom" '
verdict = re.search(r"<p class=\"verdict tone-broken\" id=\"verdict\">([^<]*)</p>", dom)
expect(verdict and verdict.group(1).startswith("BROKEN: start-up of app.exe succeeds, but 2 errors below"), "the verdict, as broken")
expect(re.search(r"<span class=\"node thick failed\" style=\"background:#ffebee;border-color:#c62828;color:#b71c1c\">cudnn_cnn64_9\.dll</span>", dom),
       "the missing cudnn_cnn64_9.dll as a red node")
expect(re.search(r"<details open=\"\"><summary><span class=\"node[^\"]*\" style=\"[^\"]*\">app\.exe 1\.0\.0\.0</span>", dom),
       "the tree open at the program, since something below it fails")
modules = visible("modules")
expect(len(modules) == 13, f"13 modules in the table, not {len(modules)}")
expect(dom.count("<button class=\"copy\" type=\"button\">copy</button>") >= 3, "a copy button per command")
expect("missing-sibling" in dom and "older-copy-wins" in dom, "the findings")
expect("cuDNN 9.0.0.312" in dom, "the stack")
'

browser --dump-dom "file://$report#filter=cudnn_cnn64" >"$work/filtered.dom"
check "the modules filter" "$work/filtered.dom" '
shown = visible("modules")
expect(len(shown) == 1 and "cudnn_cnn64_9.dll" in shown[0], f"one row left, cudnn_cnn64_9.dll: {len(shown)} rows")
expect(re.search(r"<input class=\"filter\"[^>]*>", dom), "the filter box")
'

# report_of_copy FOLDER PAGE: the example's app copied into FOLDER, its report written to PAGE (exit 1:
# the example's errors).
report_of_copy() {
  mkdir -p "$1"
  cp -r "$example/app/." "$1/"
  local status=0
  "$dlldoctor" "$1/app.exe" --path "$example/cuda/bin" --path "$example/cudnn/bin" --format html -o "$2" || status=$?
  [ "$status" -eq 1 ] || { echo "FAIL: dlldoctor on a copy in $1 exited $status, not 1"; exit 1; }
}
# A name the page must show as text: markup, quotes and an ampersand in the program's folder.
report_of_copy "$work/<b>x</b> & \"q\" 'a'" "$work/hostile.html"
browser --dump-dom "file://$work/hostile.html" >"$work/hostile.dom"
check "a hostile folder name, as text" "$work/hostile.dom" '
expect("&lt;b&gt;x&lt;/b&gt; &amp; \"q\" '"'"'a'"'"'/app.exe" in dom, "the folder name shown as written")
expect("<b>x</b>" not in dom, "no markup from a folder name")
'

browser --screenshot="$work/report.png" --window-size=1280,1800 "file://$report" >/dev/null
if [ "$(head -c 8 "$work/report.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
  echo "ok: screenshot $work/report.png"
else
  echo "FAIL: no screenshot"
  failures=$((failures + 1))
fi

# Long paths and commands wrap in their box: nothing scrolls sideways in a 1280-pixel window (a torch
# report did). The copy measures the page as laid out; its policy allows inline scripts.
long="$work/a-folder-name-that-goes-on-and-on-$(printf 'x%.0s' $(seq 1 200))/site-packages/torch/lib"
report_of_copy "$long" "$work/long.html"
sed 's|</body>|<script>document.body.setAttribute("data-scroll-width", document.documentElement.scrollWidth)</script></body>|' \
  "$work/long.html" >"$work/long-measured.html"
browser --window-size=1280,1800 --dump-dom "file://$work/long-measured.html" >"$work/long.dom"
check "long paths wrap in a 1280-pixel window, and the plan is on the page" "$work/long.dom" '
width = re.search(r"data-scroll-width=\"(\d+)\"", dom)
expect(width and int(width.group(1)) <= 1280, f"the page is {width.group(1) if width else None} pixels wide")
expect("<h2>Plan</h2>" in dom and "plan-step-1" in dom, "the plan")
'
scan_page=$work/scan.html
status=0
"$dlldoctor" --scan "$example" --format html -o "$scan_page" || status=$?
# No folder of the example mixes releases (each holds one): exit 0.
[ "$status" -eq 0 ] || { echo "FAIL: --scan --format html exited $status, not 0"; exit 1; }
browser --dump-dom "file://$scan_page#filter=cudnn64_9" >"$work/scan.dom"
check "the scan page, filtered" "$work/scan.dom" '
groups = re.findall(r"<tr class=\"group\"( hidden=\"\")?><th colspan=\"\d\">([^<]*)", dom)
shown_groups = [title for hidden, title in groups if not hidden]
expect(len(groups) >= 4, f"a heading per DLL and version: {len(groups)}")
expect(sorted(shown_groups) == ["cudnn64_9.dll (cuDNN 9) — 9.0.0.312", "cudnn64_9.dll (cuDNN 9) — 9.1.0.70"],
       f"only cudnn64_9.dll, one heading per version: {shown_groups}")
copies = visible("copies")
expect(len(copies) == 2, f"its two copies: {len(copies)}")
'

[ "$failures" -eq 0 ] || { echo "$failures HTML check(s) failed"; exit 1; }
echo "the HTML reports render in Chromium"
