#!/usr/bin/env bash
# A field added to one command in protocol/command_table.cpp reaches every client with no other
# edit. In a scratch copy of the tree, `stop` gains a field `scratch_note` (a string) in the table
# alone; a scratch build of herd-catalogue and herd-ctl then must show it in the catalogue
# (commands.json and the JS package's module), on herd-ctl's `stop --help` and in the command
# herd-ctl sends, in the JavaScript and Python clients' `stop` methods (built from that catalogue),
# and in the command palette's form for `stop`. Usage: scratch_field.sh SOURCE_ROOT NODE PYTHON3
set -euo pipefail
root="$1" node="$2" python="$3"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
src="$scratch/src" build="$scratch/build" cat="$scratch/catalogue"
mkdir -p "$src" "$cat"

# The tree as it is (tracked and new files, not what .gitignore leaves out).
(cd "$root" && git ls-files -z --cached --others --exclude-standard) |
  (cd "$root" && xargs -0 cp --parents -t "$src" 2>/dev/null || true)
"$python" - "$src/protocol/command_table.cpp" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
at = text.index('.cmd = "stop"')
fields = text.index(".fields = {", at) + len(".fields = {")
field = ('{.name = "scratch_note", .kind = K::string, .min_length = 1, .max_length = 40, '
         '.sample = R"("hi")", .help = "a field only the scratch-build test declares"},\n')
open(path, "w").write(text[:fields] + field + text[fields:])
PY

# Compiled as scripts/test compiles (ccache keyed on paths relative to the tree, so only the
# changed table is compiled anew once the cache is warm).
export CCACHE_BASEDIR="$src" CCACHE_NOHASHDIR=1 CCACHE_IGNOREOPTIONS="-ffile-prefix-map=*"
cmake --preset release -S "$src" -B "$build" >"$scratch/cmake.log" 2>&1 || { cat "$scratch/cmake.log"; exit 1; }
ninja -C "$build" herd-catalogue herd-ctl >"$scratch/ninja.log" 2>&1 || { tail -n 40 "$scratch/ninja.log"; exit 1; }
"$build/herd-catalogue" --out "$cat"

fail=0
check() {  # check WHAT COMMAND...: runs the command, reports
  local what="$1"; shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; fail=1; fi
}
check "commands.json declares stop's scratch_note" \
  "$python" -c 'import json,sys; c=json.load(open(sys.argv[1])); s=[x for x in c["commands"] if x["cmd"]=="stop"][0]; sys.exit(0 if [f for f in s["fields"] if f["name"]=="scratch_note" and f["kind"]=="string"] else 1)' "$cat/commands.json"
check "the JS package's module declares it" grep -q '"scratch_note"' "$cat/catalogue.js"
check "herd-ctl stop --help lists --scratch-note" \
  sh -c '"$1" stop --help | grep -q -- "--scratch-note"' _ "$build/herd-ctl"
check "a subcommand answers to its command's wire name too (set_target for target)" \
  sh -c '"$1" set_target --help | grep -q -- "--spacing"' _ "$build/herd-ctl"
check "the JS client's stop accepts scratch_note" "$node" --input-type=module -e "
  const { commandsFrom } = await import('$root/clients/js/src/commands.js');
  const { default: catalogue } = await import('$cat/catalogue.js');
  const table = commandsFrom(catalogue);
  if (!('scratch_note' in table.stop)) process.exit(1);"
check "the Python client's stop takes scratch_note" "$python" -c "
import inspect, sys
sys.path.insert(0, '$root/clients/python')
from herd.commands import commands_from, load_catalogue
cls = commands_from(load_catalogue('$cat/commands.json'))
sent = []
class Fake(cls):
    def command(self, cmd, /, **fields):
        sent.append((cmd, fields))
sys.exit(0 if 'scratch_note' in inspect.signature(cls.stop).parameters
         and (Fake().stop(agents='all', scratch_note='hi') or sent == [('stop', {'agents': 'all', 'scratch_note': 'hi'})])
         else 1)"
check "the palette's form for stop shows and sends it" "$node" --input-type=module -e "
  import { readFileSync } from 'node:fs';
  const { newForm, shownFields, formCommand } = await import('$root/clients/web/command_catalogue.js');
  const stop = JSON.parse(readFileSync('$cat/commands.json', 'utf8')).commands.find((c) => c.cmd === 'stop');
  const ctx = { selected: [], world: { width: 800, height: 600 }, map: null, obstacles: [], lists: {} };
  const form = newForm(stop, ctx);
  if (!shownFields(stop, form).some((t) => t.field.name === 'scratch_note')) process.exit(1);
  form.texts.scratch_note = 'hi';
  const sent = formCommand(stop, form);
  if (!('fields' in sent) || sent.fields.scratch_note !== 'hi') process.exit(2);"
exit $fail
