#!/usr/bin/env bash
# Installs TraitBridge like a system program, or makes its Debian package.
#
#   scripts/package.sh install     the binary, completions, manual, examples, systemd unit
#   scripts/package.sh uninstall   removes what `install` wrote (its list of files)
#   scripts/package.sh deb         traitbridge_<version>_<arch>.deb in $OUT (default .build-deb;
#                                  DEB_COMPRESSION: xz, gzip or none)
#
# PREFIX (default /usr/local) and DESTDIR (default empty) as usual. BINARY: an already built
# traitbridge to install; without it, a release build with the Swift runtime linked in statically
# (`--static-swift-stdlib`, in .build-static), so the installed binary needs no Swift toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: scripts/package.sh install|uninstall|deb}
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
SWIFT=${SWIFT:-swift}

binary() {
    if [ -n "${BINARY:-}" ]; then
        echo "$BINARY"
        return
    fi
    "$SWIFT" build -c release --static-swift-stdlib --scratch-path .build-static --product traitbridge >&2
    # Without its symbols: 200 MB become about 60.
    strip --strip-unneeded -o .build-static/traitbridge-stripped .build-static/release/traitbridge
    echo .build-static/traitbridge-stripped
}

# The manual, from the same help the commands print (swift-argument-parser's generate-manual).
manual() {
    local bin=$1 out=$2 tool
    # Its own build folder: never waits for (or blocks) a build or test run in .build.
    "$SWIFT" package --scratch-path .build-tools generate-manual --help >/dev/null 2>&1 || true
    tool=$(find .build-tools -path '*/debug/generate-manual-tool' -type f -perm -u+x 2>/dev/null | head -1)
    if [ -z "$tool" ]; then
        echo "package: swift-argument-parser's generate-manual-tool did not build in .build-tools" >&2
        exit 1
    fi
    # Dated by the commit, so the same tree makes the same page.
    local when
    when=$(git log -1 --format=%ct 2>/dev/null || date +%s)
    "$tool" "$bin" --output-directory "$out" --date "$(date -u -d "@$when" +%F)"
}

unit_dir() {
    if [ "$PREFIX" = /usr ]; then echo /usr/lib/systemd/system; else echo "$PREFIX/lib/systemd/system"; fi
}

install_files() {
    local bin root=$DESTDIR$PREFIX list
    bin=$(binary)
    list=$root/share/traitbridge/installed-files
    install -d "$root/bin" "$root/share/man/man1" "$root/share/bash-completion/completions" \
        "$root/share/zsh/site-functions" "$root/share/fish/vendor_completions.d" \
        "$root/share/traitbridge/examples" "$DESTDIR$(unit_dir)" "$root/lib/sysusers.d"
    install -m 755 "$bin" "$root/bin/traitbridge"
    "$bin" --generate-completion-script bash >"$root/share/bash-completion/completions/traitbridge"
    "$bin" --generate-completion-script zsh >"$root/share/zsh/site-functions/_traitbridge"
    "$bin" --generate-completion-script fish >"$root/share/fish/vendor_completions.d/traitbridge.fish"
    manual "$bin" "$root/share/man/man1"
    cp -R examples/. "$root/share/traitbridge/examples/"
    sed "s|@BINDIR@|$PREFIX/bin|g" packaging/traitbridge.service >"$DESTDIR$(unit_dir)/traitbridge.service"
    install -m 644 packaging/sysusers.conf "$root/lib/sysusers.d/traitbridge.conf"
    # What uninstall removes: every file written here, by its path without DESTDIR.
    (cd "${DESTDIR:-/}" && find ".$PREFIX/bin/traitbridge" ".$PREFIX/share/man/man1" \
        ".$PREFIX/share/bash-completion/completions/traitbridge" ".$PREFIX/share/zsh/site-functions/_traitbridge" \
        ".$PREFIX/share/fish/vendor_completions.d/traitbridge.fish" ".$PREFIX/share/traitbridge" \
        ".$(unit_dir)/traitbridge.service" ".$PREFIX/lib/sysusers.d/traitbridge.conf" -type f 2>/dev/null |
        sed 's|^\.||' | grep -E 'traitbridge' | sort) >"$list.tmp"
    echo "$PREFIX/share/traitbridge/installed-files" >>"$list.tmp"
    mv "$list.tmp" "$list"
    echo "installed traitbridge into ${DESTDIR}${PREFIX} ($(wc -l <"$list") files; list in $list)"
}

uninstall_files() {
    local list=$DESTDIR$PREFIX/share/traitbridge/installed-files
    [ -f "$list" ] || { echo "uninstall: $list not found: nothing installed under ${DESTDIR}${PREFIX}" >&2; exit 1; }
    local count=0
    while IFS= read -r file; do
        case "$file" in */traitbridge* | */_traitbridge) ;; *) continue ;; esac
        rm -f -- "$DESTDIR$file" && count=$((count + 1))
    done <"$list"
    rm -rf -- "$DESTDIR$PREFIX/share/traitbridge"
    echo "removed $count files from ${DESTDIR}${PREFIX}"
}

make_deb() {
    local out=${OUT:-.build-deb} version arch root size deb
    version=$(tr -d ' \n' <VERSION)
    arch=$(dpkg --print-architecture)
    root=$out/root
    rm -rf "$root"
    mkdir -p "$root/DEBIAN" "$root/etc/traitbridge"
    PREFIX=/usr DESTDIR=$root install_files >/dev/null
    rm -f "$root/usr/share/traitbridge/installed-files"  # dpkg keeps its own list
    gzip -9n "$root"/usr/share/man/man1/*.1
    install -m 640 packaging/config.json "$root/etc/traitbridge/config.json"
    echo /etc/traitbridge/config.json >"$root/DEBIAN/conffiles"
    install -m 755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$root/DEBIAN/"
    size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
    sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@SIZE@|$size|" packaging/debian/control.in \
        >"$root/DEBIAN/control"
    deb=$out/traitbridge_${version}_${arch}.deb
    dpkg-deb --root-owner-group "-Z${DEB_COMPRESSION:-xz}" --build "$root" "$deb" >/dev/null
    echo "$deb"
}

case "$mode" in
install) install_files ;;
uninstall) uninstall_files ;;
deb) make_deb ;;
*) echo "usage: scripts/package.sh install|uninstall|deb" >&2; exit 2 ;;
esac
