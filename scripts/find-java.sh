# Sourced by ./unibench and ./run-tests: sets JAVA_HOME to a JDK >= 21 and puts it first on PATH.
# Order: $JAVA_HOME, `java` on PATH, then every /usr/lib/jvm/* (newest first).

java_major() { # prints the feature version of the java binary $1, or 0
  "$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}' | cut -d. -f1
}

unibench_find_jdk() {
  local candidates=() c home
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if command -v java >/dev/null 2>&1; then
    c=$(readlink -f "$(command -v java)")
    candidates+=("${c%/bin/java}")
  fi
  for c in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do candidates+=("${c%/}"); done
  for home in "${candidates[@]}"; do
    if [ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ] && [ "$(java_major "$home/bin/java")" -ge 21 ] 2>/dev/null; then
      export JAVA_HOME="$home"
      export PATH="$home/bin:$PATH"
      return 0
    fi
  done
  echo "unibench: no JDK >= 21 found (looked at JAVA_HOME, java on PATH, /usr/lib/jvm/*); install one, e.g. apt-get install openjdk-21-jdk" >&2
  return 1
}

unibench_jdk_at_least() { # true when $JAVA_HOME's feature version is >= $1 (read from its release file, no JVM start)
  local v
  v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release" 2>/dev/null)
  [ -n "$v" ] && [ "$v" -ge "$1" ]
}

# The launcher's AOT cache for a jar (JDK >= 25: JEP 483, classes loaded and linked ahead of time), made by a short run
# against the embedded simulator under the given JIT flags; CACHE is written only when that run succeeds, its output
# goes to LOG. Without method training data (-XX:-AOTRecordTraining): under the launcher's C1 a profile is of no use,
# and JDK 25 holds a method that the training run saw but did not compile at 100x its compile thresholds
# (Tier0ProfileDelayFactor): a path the training did not make hot (a server closing after every reply, chunked
# replies) stayed interpreted through the first measured requests, the client warm-up notwithstanding
# (bench/HISTORY.md, "warm31"). Used by ./unibench and the bench scripts, so they measure what the launcher runs.
unibench_aot_train() { # CACHE JAR LOG OUTDIR JIT_FLAG...
  local cache="$1" jar="$2" log="$3" outdir="$4"; shift 4
  if "$JAVA_HOME/bin/java" "$@" -XX:+UnlockDiagnosticVMOptions -XX:-AOTRecordTraining -XX:AOTCacheOutput="$cache.$$" \
       -jar "$jar" perf --no-db --number 300 --parallel 50 --max-tokens 64 --outputs-dir "$outdir" --no-timestamp \
       >"$log" 2>&1 && [ -f "$cache.$$" ]; then
    mv -f "$cache.$$" "$cache"
  else
    rm -f "$cache.$$"
    return 1
  fi
}
