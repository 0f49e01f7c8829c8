# dircache.sh MOUNT: changes of one directory of an NFS mount by this client alone (300 files written, each followed by
# reading two files made before; every name checked; 100 files moved into a subdirectory, each followed by a check of
# the first), then how long that took and how many calls of each kind the client sent to the mount's server (from
# /proc/self/mountstats). A server whose replies let the client keep what it has cached of the directory (NFSv3's
# attributes before a change, NFSv4's atomic change_info4) takes few LOOKUPs and ACCESSes; one whose replies do not
# makes the client look every name up again after each change.
M=$1
ops() {
    awk -v m=" $M " 'index($0, m) && /^device/ { f = 1; next } /^device/ { f = 0 }
        f && /^[ \t]*[A-Z_]+:/ { print $1, $2 }' /proc/self/mountstats
}
ops > /tmp/dircache.before
rm -rf "$M/dircache" && mkdir "$M/dircache" && cd "$M/dircache" || exit 90
start=$(cut -d' ' -f1 /proc/uptime)
i=0; while [ $i -lt 300 ]; do echo $i > f$i; cat f0 f1 > /dev/null 2>&1; i=$((i+1)); done
i=0; while [ $i -lt 300 ]; do [ -e f$i ] || echo "missing f$i"; i=$((i+1)); done
mkdir sub && i=0; while [ $i -lt 100 ]; do mv f$i sub/ && [ -e sub/f0 ] || echo "missing sub/f$i"; i=$((i+1)); done
[ "$(cat sub/f99 f299)" = "$(printf '99\n299')" ] || echo "wrong content"
end=$(cut -d' ' -f1 /proc/uptime)
cd / && ops > /tmp/dircache.after && rm -rf "$M/dircache"
echo "ms $(awk -v a=$start -v b=$end 'BEGIN { print int((b - a) * 1000) }')"
paste /tmp/dircache.before /tmp/dircache.after | awk '{ d = $4 - $2; if (d > 0) print $1, d }'
