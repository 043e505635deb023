#!/usr/bin/env bash
# The file-size table of the Java sources: number of files, median lines, the share under 300 lines and the
# largest five. Reads a folder of the work tree, or, with a commit, that commit's tree (nothing checked out):
#   scripts/file-sizes.sh                 # src/main/java of the work tree
#   scripts/file-sizes.sh 2471e7a         # src/main/java at a commit
#   scripts/file-sizes.sh 2471e7a src/test/java
set -euo pipefail
rev="${1:-}"
dir="${2:-src/main/java}"
cd "$(dirname "$0")/.."
if [[ -n "$rev" ]]; then
    git ls-tree -r --name-only "$rev" -- "$dir" | grep '\.java$' | while read -r f; do
        printf '%s %s\n' "$(git show "$rev:$f" | wc -l)" "$f"
    done
else
    find "$dir" -name '*.java' -print0 | xargs -0 wc -l | grep -v ' total$' | awk '{print $1, $2}'
fi | sort -n | awk -v label="${rev:-work tree} $dir" '
    { lines[NR] = $1; name[NR] = $2; if ($1 < 300) under++ }
    END {
        if (NR == 0) { print "no .java files under " label; exit 1 }
        median = NR % 2 ? lines[(NR + 1) / 2] : (lines[NR / 2] + lines[NR / 2 + 1]) / 2
        printf "%s: %d files, median %s lines, %.1f %% under 300 lines (%d)\n", label, NR, median, 100 * under / NR, under
        print "largest:"
        for (i = NR; i > NR - 5 && i > 0; i--) printf "  %5d  %s\n", lines[i], name[i]
    }'
