#!/bin/sh
# Guest side of run-in-guest.sh: runs the selected hardware tests with the JUnit console launcher against the siw
# device on eth0 (10.0.2.15).  guest-tests.sh [all|verbs|it] [extra JUnit console options]
cd /opt/disni || exit 2
WHAT=${1:-all}
shift  # what remains are extra launcher options; the selectors are appended to them
ADDRESS=${ADDRESS:-10.0.2.15}
ulimit -l unlimited 2>/dev/null
CP=$(tr '\n' ':' < /opt/disni/classpath)
case "$WHAT" in
  verbs|all)
    for c in DisniHardwareSmokeTest DisniDeviceConformanceTest DisniConnectionConformanceTest \
             DisniDataTransferConformanceTest DisniLargeTransferConformanceTest \
             DisniMemoryRegistrationConformanceTest DisniProtectionErrorConformanceTest; do
      set -- "$@" --select-class "org.rpcrdma4j.verbs.disni.$c"
    done ;;
esac
case "$WHAT" in
  it|all) set -- "$@" --select-package org.rpcrdma4j.it.disni ;;
esac
t0=$(cut -d' ' -f1 /proc/uptime)
/opt/jre/bin/java -XX:+UseSerialGC -Xss1m \
  --add-exports java.base/sun.nio.ch=ALL-UNNAMED \
  -Djava.library.path=/opt/disni \
  -Drdma.disni=true -Drdma.disni.address="$ADDRESS" -Drdma.disni.options="${DISNI_OPTIONS:-}" \
  -Dorg.slf4j.simpleLogger.defaultLogLevel="${LOG_LEVEL:-warn}" \
  -cp "$CP" org.junit.platform.console.ConsoleLauncher execute \
  --disable-banner --disable-ansi-colors --details=tree --reports-dir=/tmp/junit-reports "$@"
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
echo "GUEST-TESTS rc=$rc $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}') s (guest clock)"
exit $rc
