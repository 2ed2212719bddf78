#!/usr/bin/env bash
# Install the alchemy-table service on a Raspberry Pi, or remove it with --uninstall.
#
#   sudo systemd/install.sh                 # apt packages, user, directories, config, venv, unit; enable, (re)start
#   sudo systemd/install.sh --extra pi5     # choose the driver extra (default: pi5 on a Pi 5/CM5/Pi 500, else pi)
#   sudo systemd/install.sh --no-apt        # skip the apt packages (installed by hand, or not a Debian system)
#   sudo systemd/install.sh --uninstall     # stop, disable, remove the unit and the venv; keep config and data
#   sudo systemd/install.sh --uninstall --purge   # also remove /etc/alchemy-table, /var/lib/alchemy-table, the user
#
# Safe to run again (after a git pull, say): what exists is kept, the code is reinstalled, the service restarted.
# Change the unit with "systemctl edit alchemy-table" (a drop-in, kept across installs), not in its file.

# DESTDIR puts every path under a prefix (the tests use it with stand-ins for the system commands).
set -euo pipefail

NAME=alchemy-table
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=${DESTDIR:-}
PREFIX=$ROOT/opt/$NAME
VENV=$PREFIX/venv
STATE=$ROOT/var/lib/$NAME
CONF_DIR=$ROOT/etc/$NAME
UNIT_DIR=$ROOT/etc/systemd/system
UNIT=$UNIT_DIR/$NAME.service
PYTHON=${PYTHON:-python3}
GROUPS_WANTED=(video gpio i2c spi)
DEVICE_TREE=${DEVICE_TREE:-/proc/device-tree}
# The camera stack comes from Raspberry Pi OS (picamera2 is not on PyPI); the venv module, the headers and a
# compiler build rpi-ws281x, which has no wheel for the Pi; lgpio is gpiozero's pin driver on Bookworm.
APT_PACKAGES=(python3-venv python3-dev gcc python3-picamera2 python3-lgpio)
# Bookworm's apt camera stack is built against its numpy 1.x: keep the venv on numpy 1 and a matching OpenCV.
CONSTRAINTS=$SRC/systemd/constraints-bookworm.txt
PIO_RULE=$ROOT/etc/udev/rules.d/60-alchemy-table-pio.rules

action=install
purge=0
apt=1
extra=auto
while [ $# -gt 0 ]; do
    case "$1" in
        --uninstall) action=uninstall ;;
        --purge) purge=1 ;;
        --no-apt) apt=0 ;;
        --extra)
            if [ $# -lt 2 ]; then echo "install.sh: --extra needs a value: auto, pi, pi5 or none" >&2; exit 2; fi
            shift; extra=$1 ;;
        -h|--help) sed -n '2,/^$/p' "$0" | sed -e '/^$/d' -e 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$extra" in auto|pi|pi5|none) ;; *) echo "install.sh: --extra must be auto, pi, pi5 or none" >&2; exit 2 ;; esac
if [ "$purge" = 1 ] && [ "$action" != uninstall ]; then
    echo "install.sh: --purge goes with --uninstall" >&2; exit 2
fi
if [ -z "$ROOT" ] && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run as root (sudo $0)" >&2; exit 1
fi

say() { echo "install.sh: $*"; }

is_pi5() {  # the SoC, not the model name: a CM5 or a Pi 500 is a BCM2712 like the Pi 5
    tr '\0' '\n' < "$DEVICE_TREE/compatible" 2>/dev/null | grep -qx 'brcm,bcm2712'
}

install_apt_packages() {
    if [ "$apt" = 0 ]; then
        say "skipped apt packages (--no-apt): ${APT_PACKAGES[*]} must be installed"
        return
    fi
    if ! command -v apt-get >/dev/null; then
        say "warning: no apt-get; install by hand: ${APT_PACKAGES[*]}"
        return
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
    say "apt packages installed: ${APT_PACKAGES[*]}"
}

allow_pio() {  # the Pi 5 NeoPixel driver writes to /dev/pio0, root's alone unless a rule gives it to gpio
    mkdir -p "$(dirname "$PIO_RULE")"
    echo 'SUBSYSTEM=="*-pio", GROUP="gpio", MODE="0660"' > "$PIO_RULE"
    udevadm control --reload-rules && udevadm trigger || true
    say "wrote $PIO_RULE (/dev/pio0 for group gpio)"
}

install_service() {
    install_apt_packages
    if getent passwd "$NAME" >/dev/null; then
        say "user $NAME exists"
    else
        useradd --system --user-group --home-dir "/var/lib/$NAME" --no-create-home \
            --shell /usr/sbin/nologin --comment "alchemy-table service" "$NAME"
        say "created user $NAME"
    fi
    for group in "${GROUPS_WANTED[@]}"; do
        if getent group "$group" >/dev/null; then
            usermod --append --groups "$group" "$NAME"
        else
            say "warning: no group '$group' on this system (enable the interface with raspi-config)"
        fi
    done

    mkdir -p "$STATE" "$CONF_DIR" "$UNIT_DIR" "$PREFIX"
    chown "$NAME:$NAME" "$STATE"
    chmod 0750 "$STATE"
    if [ -e "$CONF_DIR/config.toml" ]; then
        say "kept $CONF_DIR/config.toml"
    else
        install -m 0644 "$SRC/docs/examples/config.toml" "$CONF_DIR/config.toml"
        say "wrote $CONF_DIR/config.toml (edit it to match your wiring)"
    fi

    if [ ! -x "$VENV/bin/python" ]; then
        # System packages: picamera2 comes from Raspberry Pi OS (apt python3-picamera2), not from PyPI.
        "$PYTHON" -m venv --system-site-packages "$VENV"
        say "created $VENV"
    fi
    if [ "$extra" = auto ]; then
        if is_pi5; then extra=pi5; else extra=pi; fi
    fi
    [ "$extra" != pi5 ] || allow_pio
    spec=$SRC
    [ "$extra" = none ] || spec="$SRC[$extra]"
    constraints=()
    if "$VENV/bin/python" -c 'import numpy, sys; sys.exit(not numpy.__version__.startswith("1."))' 2>/dev/null; then
        constraints=(--constraint "$CONSTRAINTS")
        say "the system's numpy is 1.x: installing with $CONSTRAINTS (the apt camera stack needs it)"
    fi
    "$VENV/bin/pip" install --quiet --upgrade "${constraints[@]}" "$spec"
    say "installed $spec into $VENV"

    if [ -e "$UNIT" ] && ! cmp -s "$SRC/systemd/$NAME.service" "$UNIT"; then
        cp "$UNIT" "$UNIT.old"
        say "the installed unit had changed: kept as $UNIT.old (use systemctl edit $NAME for lasting changes)"
    fi
    install -m 0644 "$SRC/systemd/$NAME.service" "$UNIT"
    systemctl daemon-reload
    systemctl enable "$NAME.service"
    systemctl restart "$NAME.service"
    say "service enabled and (re)started: journalctl -u $NAME -f"
}

uninstall_service() {
    if [ -e "$UNIT" ]; then
        systemctl disable --now "$NAME.service" || true
        rm -f "$UNIT"
        systemctl daemon-reload
        say "removed the service"
    else
        say "no service installed"
    fi
    rm -rf "$PREFIX"
    rm -f "$PIO_RULE"
    if [ "$purge" = 1 ]; then
        rm -rf "$CONF_DIR" "$STATE"
        if getent passwd "$NAME" >/dev/null; then
            userdel "$NAME"
            say "removed user $NAME"
        fi
        say "removed $CONF_DIR and $STATE"
    else
        say "kept $CONF_DIR and $STATE (--purge removes them and the user)"
    fi
}

if [ "$action" = install ]; then install_service; else uninstall_service; fi
