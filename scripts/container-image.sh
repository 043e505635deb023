#!/usr/bin/env bash
# Builds the unibench image with Debian's podman (rootful, vfs storage) and checks that it starts healthy:
#   scripts/container-image.sh            # registry bases (docker.io maven / eclipse-temurin) when reachable
#   UNIBENCH_LOCAL_BASES=1 scripts/container-image.sh
# With UNIBENCH_LOCAL_BASES=1 (or when docker.io cannot be reached) the two base images are made here instead: a
# Debian minbase root file system from Debian's packages (debootstrap), plus a JRE cut from this machine's JDK 25
# with jlink (runtime) or the whole JDK and Maven (build); the build stage then reads ~/.m2 (bind-mounted) and the
# host network for Maven Central. Prints each step; exits non-zero at the first that fails.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
podman=(podman --storage-driver vfs)
# chroot isolation: RUN steps need no cgroups or namespaces (this machine's crun refuses its cgroup setup)
isolation=(--isolation "${UNIBENCH_BUILD_ISOLATION:-chroot}")
jdk="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
work="${UNIBENCH_IMAGE_WORK:-/tmp/unibench-image}"
mkdir -p "$work"

step() { echo "== $*" >&2; }

local_bases() {
  if ! "${podman[@]}" image exists localhost/unibench-debian:bookworm; then
    step "debootstrap bookworm minbase → localhost/unibench-debian:bookworm"
    rm -rf "$work/rootfs"
    debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1
    tar -C "$work/rootfs" -c . | "${podman[@]}" import - localhost/unibench-debian:bookworm >/dev/null
  fi
  step "jlink JRE from $jdk → localhost/unibench-jre:25"
  rm -rf "$work/jre" "$work/jre-ctx" && mkdir -p "$work/jre-ctx"
  "$jdk/bin/jlink" --add-modules java.se,jdk.unsupported,jdk.crypto.ec,jdk.zipfs,jdk.management,jdk.naming.dns,jdk.charsets,jdk.localedata --strip-debug --no-man-pages --no-header-files \
    --output "$work/jre-ctx/jre"
  cat >"$work/jre-ctx/Containerfile" <<'CF'
FROM localhost/unibench-debian:bookworm
COPY jre /opt/java
ENV JAVA_HOME=/opt/java PATH=/opt/java/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CF
  "${podman[@]}" build "${isolation[@]}" -q -t localhost/unibench-jre:25 "$work/jre-ctx" >/dev/null
  step "JDK + Maven → localhost/unibench-maven:25"
  rm -rf "$work/mvn-ctx" && mkdir -p "$work/mvn-ctx"
  cp -aL "$jdk" "$work/mvn-ctx/jdk" # -L: the JDK's cacerts is a link into /etc/ssl on this machine
  cp -aL /usr/share/maven "$work/mvn-ctx/maven"
  cat >"$work/mvn-ctx/Containerfile" <<'CF'
FROM localhost/unibench-debian:bookworm
COPY jdk /opt/java
COPY maven /opt/maven
ENV JAVA_HOME=/opt/java PATH=/opt/java/bin:/opt/maven/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CF
  "${podman[@]}" build "${isolation[@]}" -q -t localhost/unibench-maven:25 "$work/mvn-ctx" >/dev/null
}

build_args=()
if [ "${UNIBENCH_LOCAL_BASES:-0}" = 1 ] || ! timeout 20 "${podman[@]}" pull -q docker.io/library/eclipse-temurin:25-jre-noble >/dev/null 2>&1; then
  step "no registry image (or UNIBENCH_LOCAL_BASES=1): local Debian bases"
  local_bases
  build_args=(--build-arg MAVEN_IMAGE=localhost/unibench-maven:25 --build-arg JRE_IMAGE=localhost/unibench-jre:25
              --network host -v "$HOME/.m2:/root/.m2")
fi
step "podman build -t localhost/unibench:latest $here"
"${podman[@]}" build --format docker "${isolation[@]}" "${build_args[@]}" -t localhost/unibench:latest "$here"
step "image user, volumes, healthcheck"
"${podman[@]}" image inspect localhost/unibench:latest \
  --format 'User={{.Config.User}} Volumes={{.Config.Volumes}} Entrypoint={{.Config.Entrypoint}} Cmd={{.Config.Cmd}}'
# what ran here (2026-12-01): crun refuses this machine's cgroup v1 hierarchy and the default 1M-file ulimit, so the
# run uses runc with the cgroupfs manager, no default ulimits, and the host network on a free port
port=18431
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
printf '[containers]\ndefault_ulimits = []\n' >"$work/containers.conf"
export CONTAINERS_CONF="$work/containers.conf"
run=("${podman[@]}" --runtime "${UNIBENCH_OCI_RUNTIME:-runc}" --cgroup-manager cgroupfs)
step "podman run (token from the environment, host network, port $port)"
"${run[@]}" rm -f unibench-check >/dev/null 2>&1 || true
"${run[@]}" run -d --name unibench-check --network host -e UNIBENCH_TOKEN=check-token -e UNIBENCH_PORT="$port" \
  localhost/unibench:latest >/dev/null
trap '"${run[@]}" rm -f unibench-check >/dev/null 2>&1 || true' EXIT
for _ in $(seq 1 60); do
  if "${run[@]}" exec -e UNIBENCH_PORT="$port" unibench-check unibench-entrypoint healthcheck; then
    step "healthy: $(curl -fsS "http://127.0.0.1:$port/healthz"); without the token /api/runs answers" \
      "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/runs"), with it" \
      "$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer check-token' "http://127.0.0.1:$port/api/runs")"
    "${run[@]}" exec unibench-check id
    exit 0
  fi
  sleep 1 # polling a container's start: nothing here to wait on but the clock
done
"${run[@]}" logs unibench-check >&2 || true
echo "the container did not become healthy" >&2
exit 1
