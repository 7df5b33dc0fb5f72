#!/usr/bin/env bash
# Lays out the root file system our images start from, without a registry or a Docker daemon (docs/adr/0011):
# a Java runtime jlink-ed from the build's own JDK (>= 21), the C library files that runtime loads (copied from the
# build machine, found with ldd), the non-root user, a sticky /tmp and the folders the process may write.
# Usage: runtime-base.sh OUT_DIR JAVA_MODULES (comma-separated) CLASSES_DIR
set -euo pipefail
out=$1
modules=$2
# Jib reads the module's classes folder, which an image module (no code of its own) would not have
mkdir -p "$3"
root=$(cd "$(dirname "$0")/../../.." && pwd)
jdk=$("$root/bin/java-home")

# the same JDK, modules and script as last time: the base is still right (jlink takes a minute on a busy machine)
stamp="$jdk $modules $(sha256sum "$0" | cut -d" " -f1)"
if [ -f "$out.made-from" ] && [ "$(cat "$out.made-from")" = "$stamp" ]; then
  exit 0
fi
rm -rf "$out"
mkdir -p "$out"
"$jdk/bin/jlink" --add-modules "$modules" --output "$out/opt/java" \
  --strip-debug --no-man-pages --no-header-files --compress=zip-6

# the desktop's native parts (X11, sound, fonts) are never loaded by a headless server: leave them and what they need
rm -f "$out"/opt/java/lib/{libawt_xawt,libjawt,libsplashscreen,libjsound}.so
# every shared object the runtime's executables and libraries need, at the path the dynamic loader looks for it
for object in "$out/opt/java/bin/java" "$out"/opt/java/lib/*.so "$out"/opt/java/lib/server/libjvm.so; do
  ldd "$object" 2>/dev/null | awk '/=> \// {print $3} /^\t\/lib/ {print $1}'
done | grep -v "^$out" | sort -u | while read -r library; do
  mkdir -p "$out$(dirname "$library")"
  cp -L "$library" "$out$library"
done
# name lookups (localhost, the cluster's DNS) go through the first three; the C++ runtime is what native libraries
# unpacked from jars at run time need (RocksDB's JNI library in the broker: without it no partition starts)
for library in /lib/x86_64-linux-gnu/libnss_files.so.2 /lib/x86_64-linux-gnu/libnss_dns.so.2 \
  /lib/x86_64-linux-gnu/libresolv.so.2 /lib/x86_64-linux-gnu/libstdc++.so.6 /lib/x86_64-linux-gnu/libgcc_s.so.1; do
  [ -e "$library" ] && { mkdir -p "$out$(dirname "$library")"; cp -L "$library" "$out$library"; }
done

mkdir -p "$out/etc" "$out/tmp" "$out/proc" "$out/dev" "$out/config" "$out/var/lib/flowpipe" "$out/home/flowpipe"
cat > "$out/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
flowpipe:x:1000:1000:flowpipe:/home/flowpipe:/sbin/nologin
PASSWD
cat > "$out/etc/group" <<'GROUP'
root:x:0:
flowpipe:x:1000:
GROUP
echo 'hosts: files dns' > "$out/etc/nsswitch.conf"
# the versions of what we copied, for the image's notice
{
  echo "Java runtime: $("$out/opt/java/bin/java" -version 2>&1 | head -n 1) (jlink: $modules)"
  echo "C library: $(dpkg-query -W -f='${Package} ${Version}' libc6 2>/dev/null || echo 'libc6 of the build machine')"
} > "$out/opt/java/IMAGE-RUNTIME.txt"
# the C library's licence travels with its files (the runtime's are in /opt/java/legal, put there by jlink)
if [ -f /usr/share/doc/libc6/copyright ]; then
  mkdir -p "$out/usr/share/doc/libc6"
  cp /usr/share/doc/libc6/copyright "$out/usr/share/doc/libc6/copyright"
fi
echo "$stamp" > "$out.made-from"
