#!/usr/bin/env bash
# Runs the DiSNI provider's hardware tests (and the client/server tests of integration-tests that use it) over
# Soft-iWARP (siw) inside the disni-peer qemu guest, with a libdisni built from DiSNI 2.1's own sources.
#
#   DISNI_PEER=<dir of the disni-peer harness> LIBDISNI=<path to libdisni.so> \
#       rdma-verbs-disni/src/test/siw/run-in-guest.sh [all|verbs|it|<test class>...]
#
# Steps (see rdma-verbs-disni/README.md, "Running the hardware tests over siw in a qemu guest"):
#   1. compiles the test class paths of rdma-verbs-disni and integration-tests (reactor, nothing installed);
#   2. stages them, the JUnit console launcher, libdisni.so and a guest-side runner into $DP_DIR/guestfiles/opt/disni;
#   3. rebuilds the harness's initramfs (it copies $DP_DIR/jre and $DP_DIR/guestfiles into the guest), boots the
#      guest, runs the selected tests against siw0 on the guest's 10.0.2.15, prints the JUnit tree and summary, and
#      stops the guest it started (by the PID the harness recorded).
# The exit status is the launcher's: 0 when every selected test passed, 1 when one failed, 2 or more on set-up
# errors. Everything lands under $DP_DIR (default /var/tmp/disni-peer), nothing in the repository.
#
# Environment:
#   DISNI_PEER     the harness directory (build.sh, start.sh, guest-exec.py, stop.sh); required
#   LIBDISNI       libdisni.so built from DiSNI 2.1 (default $DP_DIR/libdisni.so)
#   DP_DIR         the harness's data directory, holding jre/ (jlink image of a JDK 17) (default /var/tmp/disni-peer)
#   DISNI_OPTIONS  provider options for the tests (-Drdma.disni.options), e.g. maxSge=4,ird=128,ord=128
#   GUEST_TIMEOUT  seconds the guest-side run may take (default 1800; qemu without KVM is slow)
#   CLASS_TIMEOUT  seconds one test class's JVM may take in the guest (default 900)
#   KEEP_GUEST=1   leave the guest running afterwards (stop it with $DISNI_PEER/stop.sh)
#   SKIP_BUILD=1   reuse the class paths compiled by an earlier run
#   REUSE_GUEST=1  run in the guest a KEEP_GUEST=1 run left up: it fetches the newly staged files over HTTP from
#                  the host instead of a new initramfs and a reboot (a few seconds instead of minutes)
set -euo pipefail

WHAT=${*:-all}
: "${DISNI_PEER:?set DISNI_PEER to the disni-peer harness directory}"
DP_DIR=${DP_DIR:-/var/tmp/disni-peer}
LIBDISNI=${LIBDISNI:-$DP_DIR/libdisni.so}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-1800}
JUNIT_PLATFORM=${JUNIT_PLATFORM:-1.14.1}
export LP_CACHE=$DP_DIR/cache DP_DIR
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
STAGE=$DP_DIR/guestfiles/opt/disni
log() { echo "[run-in-guest $(date +%T)] $*"; }

[ -x "$DP_DIR/jre/bin/java" ] || { echo "missing $DP_DIR/jre (jlink image of a JDK 17, see the README)" >&2; exit 2; }
[ -f "$LIBDISNI" ] || { echo "missing $LIBDISNI (build libdisni from DiSNI 2.1's sources, see the README)" >&2; exit 2; }

# ------------------------------------------------------------------ 1. class paths
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  log "compiling the test class paths"
  (cd "$ROOT" && mvn -B -q -pl rdma-verbs-disni,integration-tests -am test-compile dependency:build-classpath \
      -Dmdep.outputFile=target/test-cp.txt -Dmdep.includeScope=test)
  (cd "$ROOT" && mvn -B -q dependency:get -Dartifact="org.junit.platform:junit-platform-console:$JUNIT_PLATFORM")
fi

# ------------------------------------------------------------------ 2. stage
log "staging $STAGE"
rm -rf "$STAGE"; mkdir -p "$STAGE/lib"
cp "$LIBDISNI" "$STAGE/libdisni.so"
M2=${MAVEN_REPO:-$HOME/.m2/repository}
entries=()
for f in $(for m in rdma-verbs-disni integration-tests; do tr ':' '\n' < "$ROOT/$m/target/test-cp.txt"; echo; done;
           for a in console launcher reporting; do
             echo "$M2/org/junit/platform/junit-platform-$a/$JUNIT_PLATFORM/junit-platform-$a-$JUNIT_PLATFORM.jar"; done); do
  entries+=("$f")
done
for m in rdma-verbs-disni integration-tests; do
  entries+=("$ROOT/$m/target/classes" "$ROOT/$m/target/test-classes")
done
: > "$STAGE/classpath"
declare -A seen=()
for f in "${entries[@]}"; do
  [ -e "$f" ] || continue
  case "$f" in
    */target/classes|*/target/test-classes)
      name=$(basename "$(dirname "$(dirname "$f")")")-$(basename "$f").jar
      jar cf "$STAGE/lib/$name" -C "$f" . ;;
    *.jar) name=$(basename "$f"); cp "$f" "$STAGE/lib/$name" ;;
    *) continue ;;
  esac
  [ -n "${seen[$name]:-}" ] && continue
  seen[$name]=1
  echo "/opt/disni/lib/$name" >> "$STAGE/classpath"
done
install -m 0755 "$(dirname "$0")/guest-tests.sh" "$STAGE/guest-tests.sh"
log "staged $(wc -l < "$STAGE/classpath") class path entries ($(du -sh "$STAGE" | cut -f1))"

# ------------------------------------------------------------------ 3. guest
if [ "${REUSE_GUEST:-0}" = 1 ]; then
  # a guest of an earlier KEEP_GUEST=1 run: it fetches the staged files from the host (10.0.2.2 is the host's
  # loopback seen through qemu's user network) instead of a new initramfs and a reboot
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  python3 -m http.server --bind 127.0.0.1 --directory "$STAGE" "$port" >/dev/null 2>&1 &
  http=$!
  trap 'kill $http' EXIT
  sleep 1
  python3 "$DISNI_PEER/guest-exec.py" --timeout 300 "cd /opt/disni && for f in guest-tests.sh classpath \
      \$(sed 's,^/opt/disni/,,' /opt/disni/classpath 2>/dev/null); do wget -q -O \$f.new http://10.0.2.2:$port/\$f \
      && mv \$f.new \$f || echo FETCH-FAILED \$f; done; chmod +x guest-tests.sh; \
      for f in \$(sed 's,^/opt/disni/,,' classpath); do [ -f \$f ] || wget -q -O \$f http://10.0.2.2:$port/\$f; done"
else
  log "rebuilding the initramfs"
  LP_FORCE=1 "$DISNI_PEER/build.sh"
  "$DISNI_PEER/start.sh"
  if [ "${KEEP_GUEST:-0}" != 1 ]; then
    trap '"$DISNI_PEER/stop.sh"' EXIT
  fi
fi
python3 "$DISNI_PEER/guest-exec.py" --timeout 60 \
  'ibv_devinfo -v 2>&1 | grep -E "hca_id|transport|max_qp_wr|max_sge|max_cqe|max_qp_rd_atom|max_qp_init_rd_atom|max_mr_size"' || true
log "running '$WHAT' in the guest (timeout ${GUEST_TIMEOUT}s)"
set +e
python3 "$DISNI_PEER/guest-exec.py" --timeout "$GUEST_TIMEOUT" \
  "DISNI_OPTIONS='${DISNI_OPTIONS:-}' CLASS_TIMEOUT=${CLASS_TIMEOUT:-900} /opt/disni/guest-tests.sh $WHAT"
rc=$?
set -e
log "guest run exit status $rc"
exit $rc
