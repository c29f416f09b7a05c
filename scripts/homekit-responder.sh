#!/usr/bin/env bash
# Starts an mDNS responder (avahi-daemon, with a D-Bus of its own) inside a network sandbox made
# by scripts/sandbox.sh, announcing only on the sandbox's side of its veth pair. The bridge, which
# runs outside, publishes through it with avahi-publish over that D-Bus (DBUS_SYSTEM_BUS_ADDRESS);
# a controller inside the sandbox finds it by mDNS. Nothing reaches the machine's own interfaces.
#
#   scripts/homekit-responder.sh up SANDBOX DIR   prints the D-Bus address (unix:path=DIR/bus)
#
# The daemons live in the sandbox: `scripts/sandbox.sh down SANDBOX` ends them. Needs root.
set -euo pipefail
PATH=/usr/sbin:/sbin:/usr/bin:/bin:$PATH
[ $# -eq 3 ] && [ "$1" = up ] || { echo "usage: $0 up SANDBOX DIR" >&2; exit 64; }
sandbox=$2
dir=$3
mkdir -p "$dir"
cat > "$dir/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="root"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
CONF
cat > "$dir/avahi-daemon.conf" <<CONF
[server]
host-name=traitbridge-sandbox
use-ipv4=yes
use-ipv6=no
allow-interfaces=veth0
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[publish]
publish-hinfo=no
publish-workstation=no
CONF
ip netns exec "$sandbox" dbus-daemon --config-file="$dir/bus.conf" --fork --nopidfile >/dev/null
for _ in $(seq 1 50); do [ -S "$dir/bus" ] && break; sleep 0.1; done
[ -S "$dir/bus" ] || { echo "homekit-responder: dbus-daemon did not start" >&2; exit 69; }
# avahi-daemon keeps its pid file and socket in /run/avahi-daemon: a tmpfs of this namespace's own.
ip netns exec "$sandbox" sh -c "mkdir -p /run/avahi-daemon && mount -t tmpfs tmpfs /run/avahi-daemon && \
    DBUS_SYSTEM_BUS_ADDRESS=unix:path=$dir/bus exec avahi-daemon -f $dir/avahi-daemon.conf --no-drop-root \
    --no-chroot --no-rlimits" >"$dir/avahi.log" 2>&1 &
for _ in $(seq 1 100); do grep -q "Server startup complete" "$dir/avahi.log" && break; sleep 0.1; done
grep -q "Server startup complete" "$dir/avahi.log" || {
    echo "homekit-responder: avahi-daemon did not start: $(tail -3 "$dir/avahi.log")" >&2
    exit 69
}
echo "unix:path=$dir/bus"
