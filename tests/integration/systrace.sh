#!/usr/bin/env bash
# systrace / atrace HTML (issue 25 item 4): the ftrace text inside an HTML
# page reads as the text itself would. The page plain, gzip-compressed, from
# a pipe, and in trace2html's base64-of-gzip form converts to the same
# blkparse text as the extracted ftrace text; blocks that are not ftrace
# (process dump, JSON) are counted and skipped; a replay takes the page and
# classifies its processes by name; the whole-stack ftrace replay takes it too; the
# pre-catapult layout (the text as a JavaScript string) reads as the text.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
page=$src/tests/data/systrace/launch.html

sed -n '/^# tracer: nop/,/^  <\/script>/p' "$page" | sed '$d' > "$tmp/text.trace"
"$bin" trace convert "$tmp/text.trace" --to blkparse > "$tmp/text.txt" || say "text convert exited $?"
[ "$(grep -c ' [QDCI] ' "$tmp/text.txt")" -eq 11 ] || say "text: $(grep -c ' [QDCI] ' "$tmp/text.txt") events, expected 11"
"$bin" trace convert "$page" --to blkparse > "$tmp/html.txt" || say "html convert exited $?"
cmp -s "$tmp/text.txt" "$tmp/html.txt" || { say "html and its text differ"; diff "$tmp/text.txt" "$tmp/html.txt" | head -5; }
gzip -c "$page" > "$tmp/launch.html.gz"
"$bin" trace convert "$tmp/launch.html.gz" --to blkparse > "$tmp/gz.txt" || say "gz convert exited $?"
cmp -s "$tmp/text.txt" "$tmp/gz.txt" || say "html.gz and the text differ"
gzip -c "$page" | "$bin" trace convert - --to blkparse > "$tmp/pipe.txt" || say "pipe convert exited $?"
cmp -s "$tmp/text.txt" "$tmp/pipe.txt" || say "a piped html.gz and the text differ"
"$bin" trace convert "$src/tests/fuzz/corpus/systrace/valid-viewer-data" --to blkparse > "$tmp/b64.txt" ||
	say "viewer-data convert exited $?"
cmp -s "$tmp/text.txt" "$tmp/b64.txt" || say "trace2html base64 page and the text differ"

# systrace.py before catapult (SDK tools of 2012-2014): the same text as one JavaScript
# string in a plain <script>, each line ending "\n\", a quote and a backslash escaped,
# closed by the viewer's dummy clock-sync line and `";`; a script of the viewer before it
# is not data. It reads as the text; CRLF line ends too.
{
	printf '<!DOCTYPE HTML>\n<html>\n<head i18n-values="dir:textdirection;">\n<title>Android System Trace</title>\n'
	printf '<script language="javascript">var x = "a\\"b"; function f() { return "</p>"; }</script>\n'
	printf '</head>\n<body>\n  <div class="view">\n  </div>\n  <script>\n  var linuxPerfData = "\\\n'
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/$/\\n\\/' "$tmp/text.trace"
	printf '           dummy-0000  [000] 0.0: 0: trace_event_clock_sync: parent_ts=0.0\\n";\n'
	printf '  var timelineViewEl;\n  </script>\n</body>\n</html>\n'
} > "$tmp/old.html"
"$bin" trace convert "$tmp/old.html" --to blkparse > "$tmp/old.txt" 2> "$tmp/old.err" || say "old layout exited $?: $(cat "$tmp/old.err")"
cmp -s "$tmp/text.txt" "$tmp/old.txt" || { say "the pre-catapult page and its text differ"; diff "$tmp/text.txt" "$tmp/old.txt" | head -5; }
sed 's/$/\r/' "$tmp/old.html" > "$tmp/oldcr.html"
"$bin" trace convert "$tmp/oldcr.html" --to blkparse > "$tmp/oldcr.txt" 2>/dev/null || say "old layout with CRLF exited $?"
cmp -s "$tmp/text.txt" "$tmp/oldcr.txt" || say "the pre-catapult page with CRLF differs"
"$bin" trace stat "$tmp/old.html" 2>/dev/null | grep -q "trace-data blocks: 1 (ftrace text 1, JSON 0, other 0: skipped)" ||
	say "old layout blocks: $("$bin" trace stat "$tmp/old.html" 2>&1 | grep trace-data)"

"$bin" trace stat "$page" > "$tmp/stat" || say "stat exited $?"
grep -q "^format:   systrace" "$tmp/stat" || say "format: $(grep format: "$tmp/stat")"
grep -q "trace-data blocks: 3 (ftrace text 1, JSON 1, other 1: skipped)" "$tmp/stat" ||
	say "blocks: $(grep trace-data "$tmp/stat")"

cat > "$tmp/sys.yaml" <<YAML
name: systrace-replay
device: ufs21
scheduler: cfq
workload:
  type: replay
  trace: $page
  fg_comm: ["com.whatsapp"]
YAML
"$bin" run "$tmp/sys.yaml" --quiet --out "$tmp/sys.json" || say "replay exited $?"
python3 - "$tmp/sys.json" <<'PY' || say "replay classes"
import json, sys
w = json.load(open(sys.argv[1]))["workload"]
assert w["format"] == "systrace", w["format"]
cls = {p["comm"]: (p["class"], p["ios"]) for p in w["per_pid"]}
assert cls == {"com.whatsapp": ("fg", 2), "kworker/u16:2": ("bg", 1)}, cls
PY
# The whole-stack ftrace replay (type: ftrace) takes a page too: the real
# Android ftrace sample wrapped in systrace's layout replays as the text does.
sample=$src/tests/data/android-ftrace/trace-head2000.trace
{ printf '<!DOCTYPE HTML>\n<html><head><title>Android System Trace</title></head><body>\n'
  printf '<script class="trace-data" type="application/text">\n'; cat "$sample"
  printf '  </script>\n</body></html>\n'; } > "$tmp/head.html"
for f in "$sample" "$tmp/head.html"; do
	"$bin" run "$src/configs/scenarios/ftrace-replay.yaml" --set "workload.trace=$f" --quiet \
		--out "$tmp/$(basename "$f").json" || say "ftrace replay of $f exited $?"
done
python3 - "$tmp/trace-head2000.trace.json" "$tmp/head.html.json" <<'PY' || say "ftrace replay of the page differs from the text's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("engine"); d.pop("config", None)
    for k in ("trace", "params", "lines"):  # the page has one line more (before </script>)
        d["workload"].pop(k, None)
assert a == b, [k for k in a if a[k] != b.get(k)]
PY
exit $fail
