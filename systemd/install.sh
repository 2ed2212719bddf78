#!/usr/bin/env bash
# Install the alchemy-table service on a Raspberry Pi, or remove it with --uninstall.
#
#   sudo systemd/install.sh                 # user, directories, config, venv, unit; enable and (re)start
#   sudo systemd/install.sh --extra pi5     # choose the driver extra (default: pi5 on a Pi 5, else pi)
#   sudo systemd/install.sh --uninstall     # stop, disable, remove the unit and the venv; keep config and data
#   sudo systemd/install.sh --uninstall --purge   # also remove /etc/alchemy-table, /var/lib/alchemy-table, the user
#
# Safe to run again (after a git pull, say): what exists is kept, the code is reinstalled, the service restarted.
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

action=install
purge=0
extra=auto
while [ $# -gt 0 ]; do
    case "$1" in
        --uninstall) action=uninstall ;;
        --purge) purge=1 ;;
        --extra) shift; extra=${1:-} ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

install_service() {
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
        if tr -d '\0' < /proc/device-tree/model 2>/dev/null | grep -q '^Raspberry Pi 5'; then extra=pi5; else extra=pi; fi
    fi
    spec=$SRC
    [ "$extra" = none ] || spec="$SRC[$extra]"
    "$VENV/bin/pip" install --quiet --upgrade "$spec"
    say "installed $spec into $VENV"

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
