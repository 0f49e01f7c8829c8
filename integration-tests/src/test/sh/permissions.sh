# permissions.sh DIR RUNAS: what users 1000 (alice, group 1000) and 1001 (bob, group 1001), taken on by the RUNAS
# program, may do to each other's files in DIR (empty; root runs the script): modes, owners and groups, a sticky
# directory, a directory only its owner may read or search, setuid and setgid bits cleared by a write, a setgid
# directory's group, times, hard links, execution. Each step's status and output, then the tree with owners and modes.
# Run on a local tmpfs and on an NFS mount (root not squashed), the two reports must be the same.
cd "$1" || exit 90
R="$2"
A="$R 1000 1000"
B="$R 1001 1001"
step() { n="$1"; shift; out=$( ( eval "$*" ) 2>&1 ); echo "[$n] rc=$? ${out}"; }
chmod 1777 . && mkdir shared && chmod 1777 shared && mkdir owned && chown 1000:1000 owned && chmod 755 owned
mkdir grp && chown 0:1234 grp && chmod 2777 grp
step create "$A sh -c 'umask 022; printf a > shared/af; umask 077; printf p > shared/ap' && stat -c '%u %g %a' shared/af shared/ap"
step read-other "$B cat shared/af"
step write-other "$B sh -c 'printf x >> shared/af'"
step read-private "$B cat shared/ap"
step chmod-other "$B chmod 666 shared/af"
step chown-own "$A chown 1001 shared/af"
step chgrp-foreign "$A chgrp 1001 shared/af"
step chgrp-own "$A chgrp 1000 shared/af && stat -c '%u %g' shared/af"
step sticky-rm "$B rm -f shared/af"
step sticky-mv "$B mv shared/af shared/bf"
step create-in-owned "$B sh -c 'printf b > owned/bf'"
step owner-in-owned "$A sh -c 'printf a > owned/af' && stat -c '%u %g %a' owned/af"
step private-dir "$A sh -c 'mkdir shared/adir && chmod 700 shared/adir && printf s > shared/adir/secret' && $B ls shared/adir"
step private-dir-lookup "$B cat shared/adir/secret"
step search-only "$A chmod 711 shared/adir && $B cat shared/adir/secret; $B ls shared/adir"
step setuid-cleared "$A sh -c 'printf x > shared/suid && chmod 4755 shared/suid && stat -c %a shared/suid && printf y >> shared/suid' && stat -c %a shared/suid"
step setgid-cleared "$A sh -c 'printf x > shared/sgid && chmod 2775 shared/sgid && printf y >> shared/sgid' && stat -c %a shared/sgid"
step setgid-dir "$B sh -c 'printf g > grp/bf && mkdir grp/bd' && stat -c '%u %g %a' grp/bf grp/bd"
step open-writable "$A sh -c 'printf w > shared/aw && chmod 666 shared/aw' && $B sh -c 'printf more >> shared/aw' && cat shared/aw"
step truncate-writable "$B truncate -s 2 shared/aw && cat shared/aw"
step touch-now-writable "$B touch shared/aw"
step touch-time-other "$B touch -d '2000-01-01 00:00:00' shared/aw"
step touch-time-own "$A touch -d '2000-01-01 00:00:00' shared/aw && stat -c %Y shared/aw"
step readonly-own "$A sh -c 'printf r > shared/ro && chmod 444 shared/ro && printf x >> shared/ro'"
step root-reads-private "cat shared/ap"
step hardlink-other "$B ln shared/ap shared/bl"
step rename-own-dir "$A mv shared/adir shared/adir2 && ls shared | grep -c adir2"
step exec-bit "$A sh -c 'printf \"#!/bin/sh\necho ran\n\" > shared/x && chmod 700 shared/x' && $A shared/x && $B shared/x"
echo "== tree"
find . | LC_ALL=C sort | while IFS= read -r p; do echo "$p $(stat -c '%F %u %g %a %s' "$p" | sed 's/directory [0-9]* [0-9]* \([0-9]*\) [0-9]*$/directory \1/')"; done
