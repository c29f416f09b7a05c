#!/usr/bin/env bash
# Network namespaces for the peers that multicast (mDNS: the Matter Server, the software Matter
# light, later HomeKit's responder) or gather ICE candidates (aiortc). Each sandbox is a namespace
# with its own loopback (multicast on) and one veth pair to the namespace that made it, with no
# route beyond that pair: whatever its peers send stays on the pair, never on the machine's own
# interfaces. The bridge reaches a peer at the sandbox's address over the pair.
#
# Addresses come from 198.18.0.0/15, the range RFC 2544 sets aside for test networks:
# 198.18.N.1/30 on this side (interface tbsbN), 198.18.N.2/30 inside (interface veth0), N in 0…255.
#
#   scripts/sandbox.sh up OWNER_PID   makes one, prints "NAME HOST_ADDRESS PEER_ADDRESS"
#   scripts/sandbox.sh down NAME      kills the processes inside, removes it and its pair
#   scripts/sandbox.sh sweep          removes every sandbox whose owner process is gone
#
# A sandbox is named tbsb-<owner pid>-<N>; `up` sweeps first, so a killed owner's sandbox does not
# outlive the next run. Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN): `ip netns add`.
set -euo pipefail
PATH=/usr/sbin:/sbin:/usr/bin:/bin:$PATH

usage() {
    echo "usage: $0 up OWNER_PID | down NAME | sweep" >&2
    exit 64
}

down() {
    local name=$1 index=${1##*-}
    if ip netns list | awk '{print $1}' | grep -qx "$name"; then
        # Bounded: the pids present now, killed once (a namespace takes no new process by itself).
        ip netns pids "$name" | xargs -r kill -KILL 2>/dev/null || true
        ip netns del "$name"
    fi
    ip link del "tbsb$index" 2>/dev/null || true
}

sweep() {
    local name owner
    for name in $(ip netns list | awk '{print $1}' | grep -E '^tbsb-[0-9]+-[0-9]+$' || true); do
        owner=${name#tbsb-}
        owner=${owner%-*}
        kill -0 "$owner" 2>/dev/null || down "$name"
    done
}

[ $# -ge 1 ] || usage
if [ "$(id -u)" -ne 0 ]; then
    echo "sandbox.sh: network namespaces need root (ip netns add); run as root" >&2
    exit 77
fi
if ! command -v ip >/dev/null; then
    echo "sandbox.sh: the ip tool (iproute2) is missing: apt-get install iproute2" >&2
    exit 69
fi
mkdir -p /run/lock
exec 9>/run/lock/traitbridge-sandbox.lock
flock -w 30 9 || { echo "sandbox.sh: another sandbox.sh held the lock for 30 s" >&2; exit 75; }

case $1 in
up)
    [ $# -eq 2 ] && [[ $2 =~ ^[0-9]+$ ]] || usage
    owner=$2
    sweep
    taken=$(ip -o link show | awk -F': ' '{print $2}' | sed -n 's/^tbsb\([0-9]*\).*/\1/p')
    taken+=" $(ip netns list | awk '{print $1}' | sed -n 's/^tbsb-[0-9]*-\([0-9]*\)$/\1/p')"
    index=
    for candidate in $(seq 0 255); do
        if ! grep -qx "$candidate" <<<"$(tr ' ' '\n' <<<"$taken")"; then
            index=$candidate
            break
        fi
    done
    [ -n "$index" ] || { echo "sandbox.sh: all 256 sandboxes are in use (scripts/sandbox.sh sweep)" >&2; exit 75; }
    name="tbsb-$owner-$index"
    host="198.18.$index.1"
    peer="198.18.$index.2"
    ip netns add "$name"
    if ! {
        ip link add "tbsb$index" type veth peer name veth0 netns "$name" &&
            ip addr add "$host/30" dev "tbsb$index" &&
            ip link set "tbsb$index" up &&
            ip -n "$name" addr add "$peer/30" dev veth0 &&
            ip -n "$name" link set veth0 up &&
            ip -n "$name" link set lo multicast on &&
            ip -n "$name" link set lo up
    }; then
        down "$name"
        echo "sandbox.sh: could not make the veth pair of $name" >&2
        exit 70
    fi
    echo "$name $host $peer"
    ;;
down)
    [ $# -eq 2 ] && [[ $2 =~ ^tbsb-[0-9]+-[0-9]+$ ]] || usage
    down "$2"
    ;;
sweep)
    sweep
    ;;
*)
    usage
    ;;
esac
