#!/usr/bin/env bash
# Measures the CPU baseline of issue 12's targets on this machine: runs the benchmark of
# commit fd14db9 (the last one before the streaming engine) in a worktree of its own and
# copies its results file into bench/results/, where `npm run bench` finds it by CPU model
# (bench/README.md "CPU baseline"). CPU-seconds of two machines compare the machines, not
# the code, so the ratios need a baseline measured on the same kind of machine.
#
#   bench/baseline.sh          # the full run (about 10 minutes on a 2-core machine)
#   bench/baseline.sh --quick  # the quick run (under a minute)
#
# Needs what `npm run bench` needs (PostgreSQL and Redis on this machine, psql) and the
# npm registry for the old commit's dependencies. Leaves nothing behind but the file.
set -euo pipefail

commit=fd14db9
mode=full
case "${1:-}" in
  "") ;;
  --quick) mode=quick ;;
  *) echo "usage: bench/baseline.sh [--quick]" >&2; exit 2 ;;
esac

root=$(git rev-parse --show-toplevel)
admin_url=${BASELINE_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}
work=$(mktemp -d)
database="punchline_baseline_$$"

cleanup() {
  psql "$admin_url" -qc "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true
  git -C "$root" worktree remove --force "$work/$commit" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "baseline: $commit in $work/$commit"
git -C "$root" worktree add --detach "$work/$commit" "$commit" >/dev/null
cd "$work/$commit"
npm ci --no-audit --no-fund --loglevel=error
# That commit's benchmark writes into an existing database.
psql "$admin_url" -qc "CREATE DATABASE $database"
args=()
if [ "$mode" = quick ]; then args+=(--quick); fi
DATABASE_URL="${admin_url%/*}/$database" npm run bench -- "${args[@]}"
for f in bench/results/"$mode"-*-"$commit".json; do
  # Only what this run wrote: the worktree holds the committed ones of that commit too.
  if [ "$f" -nt package-lock.json ]; then
    cp "$f" "$root/bench/results/"
    echo "baseline written to bench/results/$(basename "$f")"
  fi
done
