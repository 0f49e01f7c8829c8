#!/bin/sh
# Guest side of run-in-guest.sh: runs the selected hardware tests with the JUnit console launcher against the siw
# device on eth0 (10.0.2.15), one JVM per test class (a class that hangs or crashes the JVM costs only itself; the
# launcher prints its report only when its JVM ends), each bounded by CLASS_TIMEOUT seconds.
#   guest-tests.sh [all|verbs|it|<fully qualified class name>...]
# Prints each class's JUnit tree, a line "CLASS <name> rc=<status> <seconds> s" per class, and a summary line
# "GUEST-TESTS rc=<0 when every class passed>". The XML reports are left in /tmp/junit-reports/<class>/.
cd /opt/disni || exit 2
ADDRESS=${ADDRESS:-10.0.2.15}
CLASS_TIMEOUT=${CLASS_TIMEOUT:-900}
ulimit -l unlimited 2>/dev/null
ulimit -n 65536 2>/dev/null
CP=$(tr '\n' ':' < /opt/disni/classpath)
V=org.rpcrdma4j.verbs.disni
I=org.rpcrdma4j.it.disni
VERBS="$V.DisniHardwareSmokeTest $V.DisniDeviceConformanceTest $V.DisniConnectionConformanceTest
       $V.DisniDataTransferConformanceTest $V.DisniLargeTransferConformanceTest
       $V.DisniMemoryRegistrationConformanceTest $V.DisniProtectionErrorConformanceTest"
IT="$I.DisniClientServerTest $I.DisniNfsTest"
[ $# -eq 0 ] && set -- all
CLASSES=
for w in "$@"; do
  case "$w" in
    all) CLASSES="$CLASSES $VERBS $IT" ;;
    verbs) CLASSES="$CLASSES $VERBS" ;;
    it) CLASSES="$CLASSES $IT" ;;
    *) CLASSES="$CLASSES $w" ;;
  esac
done
up() { cut -d' ' -f1 /proc/uptime; }
rc=0
summary=
for c in $CLASSES; do
  t0=$(up)
  timeout "$CLASS_TIMEOUT" /opt/jre/bin/java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss1m \
    --add-exports java.base/sun.nio.ch=ALL-UNNAMED \
    -Djava.library.path=/opt/disni \
    -Drdma.disni=true -Drdma.disni.address="$ADDRESS" -Drdma.disni.options="${DISNI_OPTIONS:-}" \
    -Dorg.slf4j.simpleLogger.defaultLogLevel="${LOG_LEVEL:-warn}" \
    -cp "$CP" org.junit.platform.console.ConsoleLauncher execute \
    --disable-banner --disable-ansi-colors --details=tree --reports-dir="/tmp/junit-reports/$c" \
    --include-engine=junit-jupiter \
    --select-class "$c"
  r=$?
  line="CLASS ${c##*.} rc=$r $(awk -v a="$t0" -v b="$(up)" 'BEGIN{printf "%.1f", b-a}') s"
  echo "$line"
  summary="$summary
$line"
  [ "$r" = 0 ] || rc=1
done
echo "$summary"
echo "GUEST-TESTS rc=$rc"
exit $rc
