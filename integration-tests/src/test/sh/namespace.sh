# namespace.sh DIR: POSIX namespace operations in DIR (empty) through busybox, printing each step's status and output,
# then what DIR holds (type, size, links, mode, a digest of the data, link targets), in an order that does not depend
# on the file system. Run on a local tmpfs and on an NFS mount, the two reports must be the same. Device numbers,
# inode numbers, directory sizes and link counts, and the times not set explicitly, are left out: they differ between
# file systems.
cd "$1" || exit 90
src=$(mktemp -d) || exit 91 # this run's own, outside DIR: several runs may go at once
step() { n="$1"; shift; out=$( ( eval "$*" ) 2>&1 ); echo "[$n] rc=$? ${out}"; }
step mkdir-deep 'mkdir -p a/b/c/d/e/f/g/h && ls -d a/b/c/d/e/f/g/h'
step write 'printf "hello\n" > a/f1 && printf "more\n" >> a/f1 && cat a/f1'
step truncate-grow 'truncate -s 100000 a/sparse && stat -c %s a/sparse && od -An -c a/sparse | head -2'
step truncate-shrink 'printf 0123456789abcdef > a/t && truncate -s 10 a/t && cat a/t && truncate -s 12 a/t && od -An -c a/t'
step hardlink 'ln a/f1 a/hard1 && stat -c "%h %s" a/f1 a/hard1'
step symlink 'ln -s ../a/f1 a/b/sym && readlink a/b/sym && cat a/b/sym'
step dangling 'ln -s nowhere a/dangle && readlink a/dangle && cat a/dangle'
step rename-across 'mv a/f1 a/b/c/moved && stat -c %h a/hard1 a/b/c/moved && ls a'
step rename-replace 'printf old > a/old && printf new > a/new && mv a/new a/old && cat a/old && ls a'
step rename-self 'mv a/old a/old; cat a/old'
step rename-dir 'mkdir a/d1 && touch a/d1/x && mv a/d1 a/d2 && ls a/d2'
step rename-into-own-child 'mv a/b a/b/c/'
step rename-dir-over-file 'mkdir a/dd && printf f > a/ff && mv -T a/dd a/ff'
step rename-file-over-dir 'mkdir a/de && printf f > a/fe && mv -T a/fe a/de'
step rename-over-full-dir 'mkdir -p a/src a/full && touch a/full/y && mv -T a/src a/full'
step rename-over-empty-dir 'mkdir -p a/src2 a/empty && touch a/src2/z && mv -T a/src2 a/empty && ls a/empty'
step rmdir-nonempty 'rmdir a/d2'
step rmdir-file 'rmdir a/hard1'
step unlink-dir 'unlink a/d2'
step rm-missing 'rm a/missing'
step mkdir-exists 'mkdir a/d2'
step create-exclusive 'set -C; printf x > a/hard1'
step open-missing-dir 'printf x > a/nodir/f'
step fifo 'mkfifo a/fifo && stat -c %F a/fifo'
step chardev 'mknod a/null c 1 3 && stat -c "%F %t %T" a/null && cat a/null | wc -c'
step blockdev 'mknod a/blk b 7 200 && stat -c "%F %t %T" a/blk'
step chmod 'printf x > a/m && chmod 0600 a/m && stat -c %a a/m && chmod 4755 a/m && stat -c %a a/m && chmod 1777 a/d2 && stat -c %a a/d2'
step times 'printf x > a/t2 && touch -d "2001-02-03 04:05:06" a/t2 && stat -c %Y a/t2 && touch -m -d "1999-12-31 23:59:59" a/t2 && stat -c %Y a/t2'
step long-name 'n=$(printf "%0255d" 0) && printf x > "a/$n" && ls a | grep -c 0000000000'
step too-long-name 'n=$(printf "%0256d" 0) && printf x > "a/$n"'
step odd-names 'printf 1 > "a/with space" && printf 2 > "a/-dash" && printf 3 > "a/ünïcödé" && printf 4 > "a/tab	x" && ls a | grep -c -e space -e dash -e nic -e tab'
step dot-names 'printf x > a/. ; printf y > a/.. ; mkdir a/.hidden && ls -a a | grep -c hidden'
step many-files 'mkdir big && i=0; while [ $i -lt 1500 ]; do printf "$i" > big/file-with-a-long-name-$i; i=$((i+1)); done; ls big | wc -l'
step many-files-remove 'rm big/file-with-a-long-name-*5 && ls big | wc -l && ls big | sort | head -3'
step past-4gib 'truncate -s 5000000000 a/huge && printf END | dd of=a/huge bs=1 seek=4999999997 conv=notrunc 2>/dev/null && tail -c 3 a/huge && stat -c %s a/huge && truncate -s 4294967297 a/huge && stat -c %s a/huge && dd if=a/huge bs=1 skip=4294967295 count=2 2>/dev/null | od -An -c && rm a/huge'
step append 'for i in 1 2 3 4 5; do printf "$i" >> a/app; done && cat a/app'
step overwrite-middle 'printf abcdefghij > a/mid && printf XY | dd of=a/mid bs=1 seek=4 conv=notrunc 2>/dev/null && cat a/mid'
step open-unlinked 'printf keep > a/held && exec 3<a/held && rm a/held && cat <&3; exec 3<&-'
step open-unlinked-write 'exec 4>a/held2 && rm a/held2 && printf abc >&4 && exec 4>&-; ls a | grep -c held'
step tar-roundtrip 'mkdir -p $src/t/u && printf a > $src/t/a && printf bb > $src/t/u/b && ln -sf a $src/t/l && touch -d "2005-05-05 05:05:05" $src/t/a $src/t/u/b && chmod 640 $src/t/a && tar -C $src -cf $src.tar t && mkdir x && tar -C x -xf $src.tar && stat -c "%n %a %Y %s" x/t/a x/t/u/b && readlink x/t/l'
step cp-a 'cp -a x y && stat -c "%n %a %Y %s" y/t/a y/t/u/b && readlink y/t/l'
step rm-r 'rm -r y && ls'
step link-to-dir 'ln a/d2 a/d2link'
step cross-link 'ln a/hard1 x/t/u/hl && stat -c %h a/hard1'
step rename-hardlink-same 'mv a/hard1 x/t/u/hl; stat -c %h x/t/u/hl a/hard1'
rm -rf "$src" "$src.tar"
echo "== tree"
find . | LC_ALL=C sort | while IFS= read -r p; do
  t=$(stat -c %F "$p")
  case "$t" in
    "regular file"|"regular empty file") echo "$p f $(stat -c '%s %h %a' "$p") $(sha256sum < "$p" | cut -c1-16)";;
    directory) echo "$p d $(stat -c %a "$p")";;
    "symbolic link") echo "$p l $(readlink "$p")";;
    *) echo "$p $t $(stat -c %a "$p")";;
  esac
done
