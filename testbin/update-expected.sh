#!/usr/bin/env bash
# Writes every piece of expected output anew, the three ways it is pinned:
#   - insta snapshots of the renderers (src/render/**/snapshots/*.snap),
#   - the goldens of what a person sees (tests/golden/, UPDATE_GOLDEN=1):
#     the screens, the slim reading, and history's pictures (svg/),
#   - the shell completion scripts (completions/, UPDATE_COMPLETIONS=1).
# Only for an intended change of output: `git diff` afterwards is the
# review, and the commit says why the output changed. No test server is
# needed (none of these tests starts one).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
unset COLUMNS

# insta writes `.snap.new` beside each snapshot that changed; a failing
# assertion is expected here, the new files are the point.
INSTA_UPDATE=new cargo test --lib || true
find src tests -name '*.snap.new' -print0 | while IFS= read -r -d '' new; do
  # The line a failing assertion adds only points into the test source.
  grep -v '^assertion_line:' "$new" >"${new%.new}"
  rm -f "$new"
  echo "updated ${new%.new}"
done

UPDATE_GOLDEN=1 cargo test --test slim_reading --test screens --test history_svg
UPDATE_COMPLETIONS=1 cargo test --test completions

# Everything again, now against what was written: it must pass as is.
cargo test --lib --test slim_reading --test screens --test history_svg --test completions
git status --short -- src tests/golden completions
