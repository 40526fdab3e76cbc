#!/bin/bash
# output-files.sh: every file ngx writes goes through a temporary file
# nobody can plant (core's write_atomically). A symbolic link planted at the
# old fixed name (out.json.tmp -> victim) is left alone and the victim
# untouched; a link at the target's own name is refused (exit 2, naming it)
# by the measuring run and by another writer (ngx export -o), while
# /dev/stdout and /dev/null are still written; on a full file system (a
# small tmpfs in a private mount namespace; exit 77 without one) the run and
# ngx export fail naming the file and leave no temporary file behind.
source "$(dirname "$0")/../lib/ngx-run.sh"
run=(-m tcp -x pingpong -s 1-64 -c 200 --warmup 5 --raw)

echo "precious" >victim
ln -s "$IT_DIR/victim" out.json.tmp
ngx_run 60 "${run[@]}" -o out.json
[[ $RC == 0 ]] || fail "the run failed: $(cat err)"
[[ $(cat victim) == precious ]] || fail "the victim was overwritten: $(head -c 200 victim)"
[[ -L out.json.tmp && $(readlink out.json.tmp) == "$IT_DIR/victim" ]] || fail "the planted link was changed"
python3 -c 'import json; json.load(open("out.json"))' || fail "out.json is not the results"
leftovers=$(find . -name 'out.json.*' ! -name out.json.tmp)
[[ -z $leftovers ]] || fail "temporary files left: $leftovers"
ok "a planted out.json.tmp link is left alone, the victim untouched"

# A link the user names stands for the regular file it ends at (as a
# shell's `>`): that file is replaced (or created), the link stays; a link
# that cannot be followed (through a missing directory) is refused.
echo old >linked-target.json
ln -s linked-target.json linked.json
ngx_run 60 "${run[@]}" -o linked.json
[[ $RC == 0 ]] || fail "-o a link to a regular file: exit $RC: $(cat err)"
[[ -L linked.json ]] || fail "-o linked.json replaced the link with a file"
python3 -c 'import json; json.load(open("linked-target.json"))' || fail "the file behind the link is not the results"
leftovers=$(find . -name 'linked*.json.*')
[[ -z $leftovers ]] || fail "temporary files left: $leftovers"
ln -s "$IT_DIR/nowhere/x.json" dangling.json
goal=(export --goal --op bcast --algorithm binomial -P 64 -s 1Ki)
ngx_run 60 "${run[@]}" -o dangling.json
[[ $RC == 2 ]] || fail "-o a link into a missing directory: exit $RC, expected 2: $(cat err)"
grep -q 'nowhere/x.json: cannot write there' err || fail "the refusal does not name where the link leads: $(cat err)"
[[ $(cat victim) == precious ]] || fail "the victim was changed"
ok "-o a link writes the file it ends at and keeps the link; one into a missing directory is refused: $(head -1 err)"

ngx_deadline 10 "${goal[@]}" -o /dev/stdout >goal.txt 2>err || fail "export -o /dev/stdout: $(cat err)"
grep -q '^num_ranks 64' goal.txt || fail "export -o /dev/stdout wrote nothing to the redirected stdout"
ngx_run 10 "${goal[@]}" -o /dev/null
[[ $RC == 0 && -c /dev/null ]] || fail "export -o /dev/null: exit $RC, or /dev/null replaced: $(cat err)"
ok "/dev/stdout (redirected to a file) and /dev/null are written in place"

if ! unshare -m true 2>/dev/null; then
    echo "SKIP: no private mount namespace (unshare -m needs root): the full-disk case is not run"
    exit 77
fi
mkdir full
# 12 pages, 10 of them filled: 8 KiB left for a JSON of 1400 raw samples.
unshare -m bash -c '
    mount -t tmpfs -o size=48k tmpfs full || exit 77
    head -c 40960 /dev/zero >full/filler
    timeout -k 5 60 "$NGX" "$@" -o full/out.json >out 2>err
    echo $? >rc
    ls -A full >listing
    timeout -k 5 10 "$NGX" export --goal --op alltoall --algorithm pairwise -P 64 -s 1Ki -o full/all.goal 2>goal-err
    echo $? >goal-rc
    ls -A full >goal-listing
' bash "${run[@]}"
status=$?
[[ $status == 77 ]] && skip "cannot mount a tmpfs in a private mount namespace"
rc=$(cat rc)
[[ $rc != 0 ]] || fail "the run on a full file system exited 0"
grep -q 'cannot write full/out.json' err || fail "no message naming the file: $(cat err)"
[[ $(cat listing) == filler ]] || fail "files left on the full file system: $(tr '\n' ' ' <listing)"
ok "a full disk: exit $rc, '$(grep -o 'cannot write.*' err | head -1)', nothing left behind"
rc=$(cat goal-rc)
[[ $rc == 1 ]] || fail "ngx export on a full file system: exit $rc, expected 1: $(cat goal-err)"
grep -q 'cannot write full/all.goal' goal-err || fail "export's message does not name the file: $(cat goal-err)"
[[ $(cat goal-listing) == filler ]] || fail "export left files: $(tr '\n' ' ' <goal-listing)"
ok "a full disk under ngx export: exit $rc, '$(head -1 goal-err)', nothing left behind"
echo PASS
