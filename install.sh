#!/bin/sh
# install.sh — install, upgrade or uninstall pbx-console on a Debian/Ubuntu host.
#
# Run as root. Re-running it upgrades in place: the binary and the systemd unit
# are replaced, while /etc/pbx-console (env file, TLS certificate) and the data
# in /var/lib/pbx-console are kept. See `install.sh --help`.
set -eu

APP=pbx-console
SVC_USER=pbx-console
SVC_GROUP=pbx-console

# Target paths (as seen on the installed system; --root prefixes all of them).
BIN_PATH=/usr/local/bin/$APP
ETC_DIR=/etc/$APP
ENV_PATH=$ETC_DIR/env
TLS_DIR=$ETC_DIR/tls
DEFAULT_CERT=$TLS_DIR/cert.pem
DEFAULT_KEY=$TLS_DIR/key.pem
DATA_DIR=/var/lib/$APP
UNIT_PATH=/etc/systemd/system/$APP.service
# The updater (docs/decisions/0065): root, started by the path unit when the console stages a release.
UPDATE_PATH_UNIT=/etc/systemd/system/$APP-update.path
UPDATE_SERVICE_UNIT=/etc/systemd/system/$APP-update.service
F2B_FILTER_PATH=/etc/fail2ban/filter.d/$APP.conf
F2B_JAIL_PATH=/etc/fail2ban/jail.d/$APP.conf
# The root helper the console bans and trusts through (docs/decisions/0067): a socket only $SVC_GROUP opens.
F2B_HELPER_SOCKET_UNIT=/etc/systemd/system/$APP-fail2ban.socket
F2B_HELPER_SERVICE_UNIT=/etc/systemd/system/$APP-fail2ban@.service
F2B_HELPER_SOCK=/run/$APP-fail2ban.sock

DEFAULT_HOST=0.0.0.0
DEFAULT_PORT=3000

PROG=${0##*/}

usage() {
	cat <<EOF
Usage: $PROG [options]

Install or upgrade pbx-console (a single binary) as a hardened systemd service.
Re-running upgrades in place and keeps the configuration and the data.

Options:
  --binary PATH   pbx-console binary to install. Default: ./pbx-console next to
                  this script if it exists, otherwise dist/pbx-console relative
                  to this script (the build output in a source checkout).
  --root DIR      Install into DIR instead of / (every written path is prefixed
                  with DIR). Allows running without root; no user is created,
                  no ownership is changed and systemctl is not called.
  --no-systemd    Do not call systemctl (the unit file is still written).
  --fail2ban      Also install a fail2ban filter and jail for failed sign-ins
                  ($F2B_FILTER_PATH, $F2B_JAIL_PATH:
                  5 failures in 10 minutes ban the address for an hour; read from
                  the journal) and reload fail2ban if it runs; and the root helper
                  the attack view bans and trusts networks through ($F2B_HELPER_SOCK,
                  a systemd socket only the console's group may open). fail2ban
                  itself: apt-get install fail2ban
  --port N        Port written to a NEW $ENV_PATH (default $DEFAULT_PORT).
  --host ADDR     Listen address written to a NEW $ENV_PATH
                  (default $DEFAULT_HOST). An existing env file is never changed.
  --uninstall     Stop and disable the service, remove the unit and the binary.
                  Keeps $ETC_DIR and $DATA_DIR.
  --purge         With --uninstall: also delete $ETC_DIR, $DATA_DIR
                  and the $SVC_USER system user.
  -h, --help      Show this help and exit.

Files:
  $BIN_PATH                 the binary (0755)
  $ENV_PATH                       settings, read by the service (0640)
  $TLS_DIR/{cert,key}.pem        self-signed certificate (made on first install)
  $DATA_DIR                       data directory (0700, owned by $SVC_USER)
  $UNIT_PATH    systemd unit
  $UPDATE_PATH_UNIT, $APP-update.service
                  the updater: installs a release the console staged
                  ($BIN_PATH.previous keeps the binary it replaced)

Examples:
  sudo sh $PROG --binary ./pbx-console   # install or upgrade
  sudo sh $PROG --uninstall              # remove, keep config and data
EOF
}

say() { printf '%s\n' "$*"; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }
die() {
	printf '%s: error: %s\n' "$PROG" "$*" >&2
	exit 1
}
usage_error() {
	printf '%s: %s\n\n' "$PROG" "$*" >&2
	usage >&2
	exit 2
}

# ---------------------------------------------------------------- arguments --

BINARY=
ROOT=
ROOT_GIVEN=0
USE_SYSTEMD=1
UNINSTALL=0
PURGE=0
FAIL2BAN=0
OPT_PORT=
OPT_HOST=

need_arg() {
	# $1 = option name, $2 = number of remaining args (including the option)
	[ "$2" -ge 2 ] || usage_error "option $1 requires an argument"
}

while [ $# -gt 0 ]; do
	case $1 in
	--binary) need_arg "$1" $#; BINARY=$2; shift 2 ;;
	--binary=*) BINARY=${1#*=}; shift ;;
	--root) need_arg "$1" $#; ROOT=$2; ROOT_GIVEN=1; shift 2 ;;
	--root=*) ROOT=${1#*=}; ROOT_GIVEN=1; shift ;;
	--port) need_arg "$1" $#; OPT_PORT=$2; shift 2 ;;
	--port=*) OPT_PORT=${1#*=}; shift ;;
	--host) need_arg "$1" $#; OPT_HOST=$2; shift 2 ;;
	--host=*) OPT_HOST=${1#*=}; shift ;;
	--no-systemd) USE_SYSTEMD=0; shift ;;
	--fail2ban) FAIL2BAN=1; shift ;;
	--uninstall) UNINSTALL=1; shift ;;
	--purge) PURGE=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; [ $# -eq 0 ] || usage_error "unexpected argument: $1" ;;
	-*) usage_error "unknown option: $1" ;;
	*) usage_error "unexpected argument: $1" ;;
	esac
done

if [ "$PURGE" = 1 ] && [ "$UNINSTALL" = 0 ]; then
	usage_error "--purge can only be used together with --uninstall"
fi

if [ -n "$OPT_PORT" ]; then
	if ! printf '%s' "$OPT_PORT" | grep -Eq '^[1-9][0-9]{0,4}$' || [ "$OPT_PORT" -gt 65535 ]; then
		usage_error "invalid --port '$OPT_PORT' (expected a number from 1 to 65535)"
	fi
fi
if [ -n "$OPT_HOST" ]; then
	# Plain hostnames, IPv4 and (unbracketed) IPv6 addresses only: the value is
	# written unquoted into the env file and the certificate.
	if ! printf '%s' "$OPT_HOST" | grep -Eq '^[A-Za-z0-9._:-]+$'; then
		usage_error "invalid --host '$OPT_HOST' (expected an IP address or hostname, e.g. 0.0.0.0 or 127.0.0.1)"
	fi
fi
if [ "$ROOT_GIVEN" = 1 ] && [ -z "$ROOT" ]; then
	usage_error "--root needs a directory"
fi

# Normalise --root: "/" (or "//") means the real system.
if [ -n "$ROOT" ]; then
	case $ROOT in
	*[!/]*) ;;
	*) ROOT= ;;
	esac
fi
if [ -n "$ROOT" ]; then
	mkdir -p -- "$ROOT" || die "cannot create --root directory $ROOT"
	ROOT=$(CDPATH='' cd -- "$ROOT" && pwd -P) || die "cannot use --root directory"
	[ "$ROOT" != / ] || ROOT=
fi

if [ -z "$ROOT" ]; then
	if [ "$(id -u)" != 0 ]; then
		die "must be run as root (try: sudo sh $0 ...), or use --root DIR to install into a directory"
	fi
	REAL_SYSTEM=1
else
	REAL_SYSTEM=0
	# Never touch users, ownership or services of the machine we run on.
	USE_SYSTEMD=0
fi

umask 022

# ------------------------------------------------------------------ helpers --

# Temporary paths to remove on exit, one per line.
TMP_FILES=
NL='
'
add_tmp() { TMP_FILES="$TMP_FILES$1$NL"; }
cleanup() {
	old_ifs=$IFS
	IFS=$NL
	for f in $TMP_FILES; do [ -z "$f" ] || rm -rf -- "$f"; done
	IFS=$old_ifs
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# $1 = path on the target system; prints the path on this machine.
r() { printf '%s%s' "$ROOT" "$1"; }

is_loopback() {
	case $1 in
	127.* | localhost | localhost.* | ::1 | '[::1]') return 0 ;;
	esac
	return 1
}

is_ipv4() { printf '%s' "$1" | grep -Eq '^[0-9]{1,3}(\.[0-9]{1,3}){3}$'; }
is_ipv6() { case $1 in *:*) return 0 ;; esac; return 1; }

url_host() { if is_ipv6 "$1"; then printf '[%s]' "$1"; else printf '%s' "$1"; fi; }

# Value of KEY in an env file (last assignment wins, surrounding quotes removed).
env_get() {
	sed -n "s/^[[:space:]]*$2[[:space:]]*=//p" "$1" | tail -n 1 |
		sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e 's/^"\(.*\)"$/\1/' -e "s/^'\\(.*\\)'\$/\\1/"
}

detect_hostname() {
	h=$(hostname 2>/dev/null || uname -n 2>/dev/null || true)
	h=$(printf '%s' "$h" | tr -cd 'A-Za-z0-9.-')
	[ -n "$h" ] || h=localhost
	printf '%s' "$h"
}

# First non-loopback IPv4 address of this machine, or nothing.
detect_ipv4() {
	addrs=$(hostname -I 2>/dev/null || true)
	if [ -z "$addrs" ] && command -v ip >/dev/null 2>&1; then
		addrs=$(ip -4 -o addr show scope global 2>/dev/null | awk '{ sub(/\/.*/, "", $4); print $4 }' || true)
	fi
	for a in $addrs; do
		if is_ipv4 "$a"; then
			case $a in 127.* | 169.254.*) continue ;; esac
			printf '%s' "$a"
			return 0
		fi
	done
	return 0
}

# chown/chgrp only on the real system (never under --root).
own() {
	if [ "$REAL_SYSTEM" = 1 ]; then chown "$@"; fi
}

# Write stdin atomically to target path $1 with mode $2 and owner $3 (user:group).
write_atomic() {
	dest=$(r "$1")
	tmp="$dest.tmp.$$"
	add_tmp "$tmp"
	cat >"$tmp"
	chmod "$2" "$tmp"
	own "$3" "$tmp"
	mv -f -- "$tmp" "$dest"
}

user_exists() { getent passwd "$SVC_USER" >/dev/null 2>&1; }
group_exists() { getent group "$SVC_GROUP" >/dev/null 2>&1; }
systemd_running() { [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; }

# ---------------------------------------------------------------- uninstall --

if [ "$UNINSTALL" = 1 ]; then
	say "Uninstalling $APP${ROOT:+ from $ROOT}"
	if [ "$USE_SYSTEMD" = 1 ]; then
		if systemd_running; then
			if [ -e "$(r "$UNIT_PATH")" ]; then
				systemctl disable --now "$APP" >/dev/null 2>&1 || warn "could not stop/disable $APP.service"
				say "  stopped and disabled $APP.service"
			fi
			if [ -e "$(r "$UPDATE_PATH_UNIT")" ]; then
				systemctl disable --now "$APP-update.path" >/dev/null 2>&1 || warn "could not stop $APP-update.path"
			fi
		else
			warn "systemd is not running; not calling systemctl"
		fi
	elif [ "$REAL_SYSTEM" = 0 ]; then
		say "  note: --root given, systemctl not called"
	fi
	if [ "$USE_SYSTEMD" = 1 ] && systemd_running && [ -e "$(r "$F2B_HELPER_SOCKET_UNIT")" ]; then
		systemctl disable --now "$APP-fail2ban.socket" >/dev/null 2>&1 || warn "could not stop $APP-fail2ban.socket"
	fi
	for p in "$F2B_JAIL_PATH" "$F2B_FILTER_PATH" "$F2B_HELPER_SOCKET_UNIT" "$F2B_HELPER_SERVICE_UNIT"; do
		if [ -e "$(r "$p")" ]; then
			rm -f -- "$(r "$p")"
			say "  removed $p"
		fi
	done
	for p in "$UPDATE_PATH_UNIT" "$UPDATE_SERVICE_UNIT" "$BIN_PATH.previous"; do
		if [ -e "$(r "$p")" ]; then
			rm -f -- "$(r "$p")"
			say "  removed $p"
		fi
	done
	for p in "$UNIT_PATH" "$BIN_PATH"; do
		if [ -e "$(r "$p")" ] || [ -L "$(r "$p")" ]; then
			rm -f -- "$(r "$p")"
			say "  removed $p"
		else
			say "  $p was not installed"
		fi
	done
	if [ "$USE_SYSTEMD" = 1 ] && systemd_running; then
		systemctl daemon-reload || true
		systemctl reset-failed "$APP" >/dev/null 2>&1 || true
	fi
	if [ "$PURGE" = 1 ]; then
		for p in "$ETC_DIR" "$DATA_DIR"; do
			if [ -e "$(r "$p")" ]; then
				rm -rf -- "$(r "$p")"
				say "  purged $p"
			fi
		done
		if [ "$REAL_SYSTEM" = 1 ]; then
			if user_exists; then
				if userdel "$SVC_USER"; then say "  removed system user $SVC_USER"; else warn "could not remove user $SVC_USER"; fi
			fi
			if group_exists; then groupdel "$SVC_GROUP" >/dev/null 2>&1 || true; fi
		else
			say "  note: --root given, system user $SVC_USER not touched"
		fi
		say "$APP uninstalled and purged."
	else
		kept=
		for p in "$ETC_DIR" "$DATA_DIR"; do
			if [ -e "$(r "$p")" ]; then kept="$kept $p"; fi
		done
		if [ -n "$kept" ]; then
			say "Kept (configuration, TLS certificate and data):"
			for p in $kept; do say "  $p"; done
			if [ "$REAL_SYSTEM" = 1 ] && user_exists; then say "  system user $SVC_USER"; fi
			say "Re-run with --uninstall --purge to delete them too."
		fi
		say "$APP uninstalled."
	fi
	exit 0
fi

# ------------------------------------------------------------------ install --

SCRIPT_DIR=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd -P)
if [ -z "$BINARY" ]; then
	if [ -f "$SCRIPT_DIR/$APP" ]; then
		BINARY=$SCRIPT_DIR/$APP
	elif [ -f "$SCRIPT_DIR/dist/$APP" ]; then
		BINARY=$SCRIPT_DIR/dist/$APP
	else
		die "no $APP binary found (looked for $SCRIPT_DIR/$APP and $SCRIPT_DIR/dist/$APP). Build it with 'bun run build' or pass --binary PATH."
	fi
fi
[ -e "$BINARY" ] || die "binary not found: $BINARY"
[ -f "$BINARY" ] || die "binary is not a regular file: $BINARY"
[ -r "$BINARY" ] || die "binary is not readable: $BINARY"
[ -s "$BINARY" ] || die "binary is empty: $BINARY"

if [ -e "$(r "$BIN_PATH")" ]; then
	MODE=upgrade
elif [ -e "$(r "$ENV_PATH")" ]; then
	MODE=reinstall
else
	MODE=fresh
fi

HOSTNAME_=$(detect_hostname)

# Effective settings: from the existing env file, or the ones we are about to write.
if [ -f "$(r "$ENV_PATH")" ]; then
	ENV_EXISTS=1
	envf=$(r "$ENV_PATH")
	HOST=$(env_get "$envf" HOST)
	PORT=$(env_get "$envf" PORT)
	CERT=$(env_get "$envf" TLS_CERT)
	KEY=$(env_get "$envf" TLS_KEY)
	ADDRESS=$(env_get "$envf" SERVER_ADDRESS)
	[ -n "$HOST" ] || HOST=$DEFAULT_HOST
	[ -n "$PORT" ] || PORT=$DEFAULT_PORT
	if [ -n "$OPT_PORT$OPT_HOST" ]; then
		warn "$ENV_PATH already exists and is kept as is: --port/--host ignored (edit the file instead)"
	fi
else
	ENV_EXISTS=0
	HOST=${OPT_HOST:-$DEFAULT_HOST}
	PORT=${OPT_PORT:-$DEFAULT_PORT}
	CERT=$DEFAULT_CERT
	KEY=$DEFAULT_KEY
	ADDRESS=
fi
if [ -z "$ADDRESS" ]; then
	ADDRESS=$(detect_ipv4)
	[ -n "$ADDRESS" ] || ADDRESS=$HOSTNAME_
fi

# Decide what to do about TLS.
GEN_TLS=0
if [ -n "$CERT" ] && [ -n "$KEY" ]; then
	if [ ! -f "$(r "$CERT")" ] || [ ! -f "$(r "$KEY")" ]; then
		if [ "$CERT" = "$DEFAULT_CERT" ] && [ "$KEY" = "$DEFAULT_KEY" ]; then
			GEN_TLS=1
		else
			warn "TLS_CERT=$CERT / TLS_KEY=$KEY from $ENV_PATH do not both exist; the service will not be able to serve HTTPS"
		fi
	fi
elif ! is_loopback "$HOST"; then
	warn "$ENV_PATH has HOST=$HOST (not loopback) but no TLS_CERT/TLS_KEY; add TLS_CERT=$DEFAULT_CERT and TLS_KEY=$DEFAULT_KEY and re-run $PROG to create a certificate"
fi

# Pre-flight checks, before anything is changed.
if [ "$GEN_TLS" = 1 ] && ! command -v openssl >/dev/null 2>&1; then
	die "openssl is required to create the TLS certificate but was not found (install it with: apt-get install openssl)"
fi
if [ "$REAL_SYSTEM" = 1 ] && ! user_exists && ! command -v useradd >/dev/null 2>&1; then
	die "useradd not found (install the 'passwd' package)"
fi
if ! printf '%s' "$PORT" | grep -Eq '^[0-9]+$'; then
	warn "PORT=$PORT in $ENV_PATH is not a number"
fi

case $MODE in
fresh) say "Fresh install of $APP${ROOT:+ into $ROOT}" ;;
upgrade) say "Upgrading existing $APP installation${ROOT:+ in $ROOT} (configuration and data are kept)" ;;
reinstall) say "Reinstalling $APP${ROOT:+ into $ROOT} (existing configuration and data are kept)" ;;
esac

# --- system user
if [ "$REAL_SYSTEM" = 1 ]; then
	if user_exists; then
		say "  system user $SVC_USER exists"
	else
		nologin=/usr/sbin/nologin
		[ -x "$nologin" ] || nologin=/sbin/nologin
		if group_exists; then grp_opt="--gid $SVC_GROUP"; else grp_opt=--user-group; fi
		# shellcheck disable=SC2086 # grp_opt is two words on purpose
		useradd --system --no-create-home --home-dir "$DATA_DIR" --shell "$nologin" \
			--comment "pbx-console service" $grp_opt "$SVC_USER"
		say "  created system user $SVC_USER"
	fi
else
	say "  note: --root given, not creating user $SVC_USER and not changing file ownership"
	say "        (on the target system run: useradd --system --no-create-home --shell /usr/sbin/nologin $SVC_USER;"
	say "         chown -R $SVC_USER:$SVC_GROUP $DATA_DIR; chgrp -R $SVC_GROUP $ETC_DIR)"
fi

# --- directories
mkdir -p -- "$(r /usr/local/bin)" "$(r /etc/systemd/system)" "$(r "$ETC_DIR")" "$(r "$DATA_DIR")"
chmod 0750 "$(r "$ETC_DIR")"
own "root:$SVC_GROUP" "$(r "$ETC_DIR")"
chmod 0700 "$(r "$DATA_DIR")"
own -R "$SVC_USER:$SVC_GROUP" "$(r "$DATA_DIR")"

# --- env file (only when missing: re-runs keep the admin's edits)
if [ "$ENV_EXISTS" = 0 ]; then
	# Invariant: a non-loopback HOST is only ever written together with TLS.
	if ! is_loopback "$HOST" && { [ -z "$CERT" ] || [ -z "$KEY" ]; }; then
		die "internal error: refusing to write HOST=$HOST without TLS_CERT/TLS_KEY"
	fi
	write_atomic "$ENV_PATH" 0640 "root:$SVC_GROUP" <<EOF
# pbx-console settings, read by $APP.service (EnvironmentFile=).
# Written once by install.sh; later runs of install.sh keep your edits.
# After changing it: systemctl restart $APP
# The console only listens beyond loopback over HTTPS: keep TLS_CERT/TLS_KEY
# unless HOST is 127.0.0.1 (e.g. behind an SSH tunnel or a reverse proxy).
HOST=$HOST
PORT=$PORT
DATA_DIR=$DATA_DIR
TLS_CERT=$CERT
TLS_KEY=$KEY
SERVER_LABEL=$HOSTNAME_
SERVER_ADDRESS=$ADDRESS
# Other names the console is reached by (comma-separated), e.g. a DNS name or a
# reverse proxy's name. Any other Host is refused (421) against DNS rebinding;
# loopback, this machine's addresses and SERVER_ADDRESS are always accepted.
#PUBLIC_HOSTNAMES=pbx.example.com
# A reverse proxy in front (its X-Forwarded-For is believed only from these addresses/networks):
#TRUSTED_PROXIES=127.0.0.1
# Prometheus' scrape token for /metrics (16+ characters; one can also be made in Settings).
#METRICS_TOKEN=
# The fail2ban jails the attack view shows and bans in (the first running one takes bans).
#FAIL2BAN_JAILS=asterisk,$APP
EOF
	say "  wrote $ENV_PATH"
else
	say "  kept $ENV_PATH"
fi

# --- TLS certificate (self-signed, like Cockpit does on first run)
if [ "$GEN_TLS" = 1 ]; then
	mkdir -p -- "$(r "$TLS_DIR")"
	chmod 0750 "$(r "$TLS_DIR")"
	own "root:$SVC_GROUP" "$(r "$TLS_DIR")"
	gen=$(mktemp -d "$(r "$TLS_DIR")/.new.XXXXXX")
	add_tmp "$gen"
	san="DNS:$HOSTNAME_,DNS:localhost,IP:127.0.0.1"
	if is_ipv4 "$ADDRESS" || is_ipv6 "$ADDRESS"; then
		san="$san,IP:$ADDRESS"
	elif [ "$ADDRESS" != "$HOSTNAME_" ]; then
		san="$san,DNS:$ADDRESS"
	fi
	case $HOST in
	0.0.0.0 | :: | "$ADDRESS" | 127.0.0.1 | localhost) ;;
	*) if is_ipv4 "$HOST" || is_ipv6 "$HOST"; then san="$san,IP:$HOST"; else san="$san,DNS:$HOST"; fi ;;
	esac
	if ! openssl req -x509 -newkey rsa:2048 -nodes -days 825 \
		-subj "/CN=$HOSTNAME_" -addext "subjectAltName=$san" \
		-keyout "$gen/key.pem" -out "$gen/cert.pem" >"$gen/log" 2>&1; then
		cat "$gen/log" >&2
		die "openssl failed to create the TLS certificate"
	fi
	for f in cert key; do
		dest=$(r "$TLS_DIR/$f.pem")
		if [ -e "$dest" ]; then
			mv -f -- "$dest" "$dest.old.$(date +%Y%m%d%H%M%S)"
			say "  moved the old $TLS_DIR/$f.pem aside (its pair was missing)"
		fi
	done
	chmod 0640 "$gen/key.pem"
	chmod 0644 "$gen/cert.pem"
	own "root:$SVC_GROUP" "$gen/key.pem" "$gen/cert.pem"
	mv -f -- "$gen/key.pem" "$(r "$DEFAULT_KEY")"
	mv -f -- "$gen/cert.pem" "$(r "$DEFAULT_CERT")"
	say "  created a self-signed TLS certificate for $HOSTNAME_ ($san)"
elif [ -n "$CERT" ] && [ -f "$(r "$CERT")" ]; then
	say "  kept TLS certificate $CERT"
fi

# --- binary (atomic replace: copy next to the target, then rename)
bin_dest=$(r "$BIN_PATH")
if [ "$MODE" = upgrade ] && command -v cmp >/dev/null 2>&1 && cmp -s -- "$BINARY" "$bin_dest"; then
	bin_note="(unchanged)"
else
	bin_note=
fi
bin_tmp="$bin_dest.new.$$"
add_tmp "$bin_tmp"
cp -- "$BINARY" "$bin_tmp"
chmod 0755 "$bin_tmp"
own root:root "$bin_tmp"
mv -f -- "$bin_tmp" "$bin_dest"
say "  installed $BIN_PATH${bin_note:+ $bin_note}"

# --- systemd unit (always rewritten: it belongs to install.sh)
# With the fail2ban helper (installed now or by an earlier --fail2ban) the console reaches fail2ban through it.
F2B_HELPER_ENV=
if [ "$FAIL2BAN" = 1 ] || [ -e "$(r "$F2B_HELPER_SOCKET_UNIT")" ]; then
	F2B_HELPER_ENV="Environment=FAIL2BAN_HELPER=$F2B_HELPER_SOCK"
fi
CAPS="CapabilityBoundingSet="
if printf '%s' "$PORT" | grep -Eq '^[0-9]+$' && [ "$PORT" -lt 1024 ]; then
	CAPS="AmbientCapabilities=CAP_NET_BIND_SERVICE
CapabilityBoundingSet=CAP_NET_BIND_SERVICE"
fi
write_atomic "$UNIT_PATH" 0644 root:root <<EOF
# Managed by pbx-console's install.sh and overwritten on upgrade.
# For local changes use a drop-in: systemctl edit $APP
[Unit]
Description=pbx-console (FreePBX admin console)
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
User=$SVC_USER
Group=$SVC_GROUP
EnvironmentFile=$ENV_PATH
$F2B_HELPER_ENV
ExecStart=$BIN_PATH
WorkingDirectory=$DATA_DIR
Restart=on-failure
RestartSec=2
KillSignal=SIGTERM
TimeoutStopSec=15

# Hardening
NoNewPrivileges=true
ProtectSystem=strict
ProtectHome=true
PrivateTmp=true
ReadWritePaths=$DATA_DIR
ProtectKernelTunables=true
ProtectKernelModules=true
ProtectControlGroups=true
RestrictSUIDSGID=true
LockPersonality=true
RestrictRealtime=true
SystemCallArchitectures=native
UMask=0077
# Ports below 1024 need CAP_NET_BIND_SERVICE; re-run install.sh after changing PORT.
$CAPS

[Install]
WantedBy=multi-user.target
EOF
say "  wrote $UNIT_PATH"

# --- the updater (docs/decisions/0065-self-update.md). The console (its own user, hardened above) only stages
# a signed release in DATA_DIR/update and writes request.json; the path unit then starts the installed binary
# as root to check it again, back up the database, swap $BIN_PATH (keeping $BIN_PATH.previous), restart
# $APP.service and roll back unless /healthz answers the new version within 30 s.
write_atomic "$UPDATE_PATH_UNIT" 0644 root:root <<EOF
# Managed by pbx-console's install.sh and overwritten on upgrade.
[Unit]
Description=pbx-console updater trigger (the console staged a release)

[Path]
PathExists=$DATA_DIR/update/request.json
Unit=$APP-update.service

[Install]
WantedBy=multi-user.target
EOF
write_atomic "$UPDATE_SERVICE_UNIT" 0644 root:root <<EOF
# Managed by pbx-console's install.sh and overwritten on upgrade.
[Unit]
Description=pbx-console updater (installs the staged, signed release; rolls back on failure)
After=network-online.target

[Service]
Type=oneshot
EnvironmentFile=$ENV_PATH
ExecStart=$BIN_PATH update --apply
WorkingDirectory=$DATA_DIR
TimeoutStartSec=10min
# Root, for the binary (root's) and systemctl; it writes only the binary's folder and the data.
NoNewPrivileges=true
ProtectSystem=strict
ReadWritePaths=${BIN_PATH%/*} $DATA_DIR
ProtectHome=true
PrivateTmp=true
ProtectKernelTunables=true
ProtectKernelModules=true
ProtectControlGroups=true
RestrictSUIDSGID=true
LockPersonality=true
RestrictRealtime=true
SystemCallArchitectures=native
EOF
say "  wrote $UPDATE_PATH_UNIT and $UPDATE_SERVICE_UNIT"

# --- fail2ban filter and jail (with --fail2ban; the filter is contrib/fail2ban/pbx-console.conf)
if [ "$FAIL2BAN" = 1 ]; then
	mkdir -p -- "$(r /etc/fail2ban/filter.d)" "$(r /etc/fail2ban/jail.d)"
	write_atomic "$F2B_FILTER_PATH" 0644 root:root <<'F2B_FILTER'
# Fail2Ban filter for pbx-console: failed sign-ins.
#
# The console writes one line per wrong password to stdout (the journal under systemd), in one
# format (docs/decisions/0016-sign-in-throttle-and-sessions.md):
#
#   2026-11-24T06:14:37.123Z auth-failure user=<name> ip=<address>
#
# <name> is percent-encoded (never contains a space), <address> is the TCP peer (never a forwarded
# header). Attempts refused by the console's own throttle (HTTP 429) and successful sign-ins write
# no such line. Installed by `install.sh --fail2ban` as /etc/fail2ban/filter.d/pbx-console.conf.
#
# Check it against a log: fail2ban-regex <log file> /etc/fail2ban/filter.d/pbx-console.conf

[Definition]

_daemon = pbx-console

# From the journal (backend = systemd) a line reads "<host> pbx-console[<pid>]: <message>", and the
# message keeps the console's own timestamp; from a file, fail2ban cuts the timestamp off first.
__journal_prefix = (?:\S+\s+)?%(_daemon)s(?:\[\d+\])?:\s+
__iso_time = \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\s+

# Anchored at both ends: no other line the console writes starts this way, and nothing a client
# sends can put a space or a second "ip=" into the name.
failregex = ^\s*(?:%(__journal_prefix)s)?(?:%(__iso_time)s)?auth-failure user=<F-USER>\S+</F-USER> ip=<ADDR>\s*$

ignoreregex =

datepattern = {^LN-BEG}%%Y-%%m-%%dT%%H:%%M:%%S(?:\.%%f)?%%z
              {^LN-BEG}

journalmatch = _SYSTEMD_UNIT=pbx-console.service
F2B_FILTER
	say "  wrote $F2B_FILTER_PATH"
	write_atomic "$F2B_JAIL_PATH" 0644 root:root <<F2B_JAIL
# Managed by pbx-console's install.sh (--fail2ban) and overwritten on upgrade.
# Bans an address after 5 failed sign-ins within 10 minutes, for an hour. The console slows
# guessing itself (docs/decisions/0016); this keeps a persistent scanner off the port.
[$APP]
enabled      = true
filter       = $APP
backend      = systemd
journalmatch = _SYSTEMD_UNIT=$APP.service
port         = $PORT
maxretry     = 5
findtime     = 10m
bantime      = 1h
F2B_JAIL
	say "  wrote $F2B_JAIL_PATH"
	# The helper: systemd starts `pbx-console fail2ban-helper` as root per connection, the connection its
	# standard input and output. It takes one checked operation (ban, unban, trust, untrust, read) in the
	# jails of FAIL2BAN_JAILS and nothing else; fail2ban's own socket stays root's (docs/decisions/0067).
	write_atomic "$F2B_HELPER_SOCKET_UNIT" 0644 root:root <<F2B_SOCKET
# Managed by pbx-console's install.sh (--fail2ban) and overwritten on upgrade.
[Unit]
Description=pbx-console's fail2ban helper socket (bans and trusted networks from the console)

[Socket]
ListenStream=$F2B_HELPER_SOCK
SocketUser=root
SocketGroup=$SVC_GROUP
SocketMode=0660
Accept=yes
MaxConnections=16

[Install]
WantedBy=sockets.target
F2B_SOCKET
	say "  wrote $F2B_HELPER_SOCKET_UNIT"
	write_atomic "$F2B_HELPER_SERVICE_UNIT" 0644 root:root <<F2B_SERVICE
# Managed by pbx-console's install.sh (--fail2ban) and overwritten on upgrade.
[Unit]
Description=pbx-console fail2ban helper (one operation)

[Service]
EnvironmentFile=$ENV_PATH
ExecStart=$BIN_PATH fail2ban-helper
StandardInput=socket
StandardOutput=socket
StandardError=journal
RuntimeMaxSec=30
NoNewPrivileges=true
ProtectSystem=strict
ProtectHome=true
PrivateTmp=true
PrivateDevices=true
PrivateNetwork=true
ProtectKernelTunables=true
ProtectKernelModules=true
ProtectControlGroups=true
RestrictSUIDSGID=true
RestrictAddressFamilies=AF_UNIX
LockPersonality=true
RestrictRealtime=true
SystemCallArchitectures=native
CapabilityBoundingSet=
F2B_SERVICE
	say "  wrote $F2B_HELPER_SERVICE_UNIT"
	if [ "$REAL_SYSTEM" = 1 ]; then
		if ! command -v fail2ban-client >/dev/null 2>&1; then
			warn "fail2ban is not installed: the filter and jail take effect once it is (apt-get install fail2ban)"
		elif [ "$USE_SYSTEMD" = 1 ] && systemd_running && systemctl is-active --quiet fail2ban; then
			if fail2ban-client reload >/dev/null 2>&1; then say "  reloaded fail2ban"; else warn "fail2ban-client reload failed; see: fail2ban-client -d"; fi
		else
			say "  fail2ban is not running; start it with: systemctl enable --now fail2ban"
		fi
		if [ "$USE_SYSTEMD" = 1 ] && systemd_running; then
			systemctl daemon-reload
			if systemctl enable --now "$APP-fail2ban.socket" >/dev/null 2>&1; then
				say "  started $APP-fail2ban.socket"
			else
				warn "could not start $APP-fail2ban.socket; see: systemctl status $APP-fail2ban.socket"
			fi
		fi
	fi
fi

# --- start / restart
if [ "$USE_SYSTEMD" = 1 ]; then
	if systemd_running; then
		systemctl daemon-reload
		if systemctl is-active --quiet "$APP"; then
			systemctl enable "$APP" >/dev/null 2>&1
			systemctl restart "$APP"
			say "  restarted $APP.service"
		else
			systemctl enable --now "$APP" >/dev/null 2>&1
			say "  enabled and started $APP.service"
		fi
		systemctl enable --now "$APP-update.path" >/dev/null 2>&1 || warn "could not start $APP-update.path (self-update)"
		sleep 2
		if ! systemctl is-active --quiet "$APP"; then
			warn "$APP.service is not running; see: journalctl -u $APP -n 50 --no-pager"
		fi
	else
		warn "systemd is not running on this machine; start $BIN_PATH yourself"
	fi
elif [ "$REAL_SYSTEM" = 0 ]; then
	say "  note: --root given, systemctl not called (on the target: systemctl enable --now $APP)"
else
	say "  --no-systemd: not calling systemctl (to start: systemctl daemon-reload && systemctl enable --now $APP)"
fi

# --- summary
case $HOST in
0.0.0.0 | :: | '') url_addr=$ADDRESS ;;
*) url_addr=$HOST ;;
esac
if [ -n "$CERT" ] && [ -n "$KEY" ]; then scheme=https; else scheme=http; fi
URL="$scheme://$(url_host "$url_addr"):$PORT/"

say ""
case $MODE in
fresh) say "$APP installed (fresh install)." ;;
upgrade) say "$APP upgraded (upgrade; configuration and data kept)." ;;
reinstall) say "$APP reinstalled (existing configuration and data kept)." ;;
esac
say ""
say "  URL:      $URL"
if [ "$scheme" = https ] && [ "$CERT" = "$DEFAULT_CERT" ] && [ -f "$(r "$CERT")" ] && command -v openssl >/dev/null 2>&1; then
	fp=$(openssl x509 -noout -fingerprint -sha256 -in "$(r "$CERT")" 2>/dev/null | sed 's/^[^=]*=//' || true)
	say "            (self-signed certificate, your browser will warn once;"
	say "             SHA-256 fingerprint: $fp)"
fi
say "  Settings: $ENV_PATH   (then: systemctl restart $APP)"
say "  Data:     $DATA_DIR"
say "  Logs:     journalctl -u $APP"
say ""
if [ "$MODE" = fresh ]; then
	say "Create the administrator now, either:"
	if is_loopback "$HOST"; then
		say "  - open $URL (the first visit shows \"Create administrator\"), or"
	else
		say "  - open $URL (the first visit shows \"Create administrator\" and asks"
		say "    for the one-time set-up code the service prints to its journal:"
		say "      journalctl -u $APP | grep 'set-up code'"
		say "    it is also in $DATA_DIR/setup-code until the administrator exists), or"
	fi
	say "  - on this server run:"
	say "    sudo -u $SVC_USER sh -c 'set -a; . $ENV_PATH; exec $BIN_PATH create-admin --username admin'"
else
	say "To (re)create an administrator from the command line:"
	say "  sudo -u $SVC_USER sh -c 'set -a; . $ENV_PATH; exec $BIN_PATH create-admin --username admin'"
fi
