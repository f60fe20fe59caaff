#!/bin/bash
# Stand-in for FreePBX's `fwconsole`, installed by test/pbx-host/pbx-host.ts as <root>/bin/fwconsole.
# NOT FreePBX: it imitates the few commands the console uses, against the test host's real MariaDB.
#
#   fwconsole --version | -V              "FW Console - FreePBX Utility <version>" (Symfony's long version)
#   fwconsole reload | r [--json] [--dry-run] [--dont-reload-asterisk] [--skip-registry-checks]
#                                         "Reload Started" / "Reload Complete"; sets admin.need_reload = 'false'
#   fwconsole trunks --list [--json]      trunks as a table, or JSON [{"trunkid":1,"tech":..,"channelid":..,"disabled":..}]
#   fwconsole trunks --enable|--disable <id>
#
# Every call is appended to <root>/fwconsole.log as one JSON line {"argv":[...],"time":"..."} before anything else.
# If <root>/fwconsole.fail-reload exists, reload fails (message = the file's content): exit 1, or 255 with --json.
# If <root>/fwconsole.reload-locked exists, another fwconsole "holds FreePBX's lock" for the number of reload calls
# it holds (each call counts one down; `always` never frees it): reload answers as FreePBX's Reload.class.php
# setLock does, before anything else: {"error":"Process is already running.","trace":"Process ID : <pid>"}
# on stdout without a newline, exit 255 (PHP's exit(-1)), with or without --json.
# A reload that gets past the lock first appends what the host's real Asterisk holds to <root>/fwconsole.asterisk.log,
# one JSON line {"time":…,"astdb":…,"voicemailUsers":…} (the raw answers, null when Asterisk does not answer), so a
# test can tell what was done before FreePBX's reload; this stand-in does not reload Asterisk as a real reload does.
# Database credentials come from the FreePBX config file (<root>/etc/freepbx.conf, or $FREEPBX_CONF), exactly the
# AMPDB* keys a real /etc/freepbx.conf has. The version printed comes from <root>/etc/fwconsole-version.
set -u
export LC_ALL=C

ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
CONF=${FREEPBX_CONF:-$ROOT/etc/freepbx.conf}
LOG=$ROOT/fwconsole.log
ASTERISK_LOG=$ROOT/fwconsole.asterisk.log
FAIL_RELOAD=$ROOT/fwconsole.fail-reload
RELOAD_LOCKED=$ROOT/fwconsole.reload-locked
# The process id the lock names (the other fwconsole's).
LOCK_PID=4242
CLIENT=$ROOT/bin/mariadb
BS='\'
DQ='"'

# JSON string literal of $1 (bytes other than " \ and control characters pass through unchanged).
json_str() {
  local s=$1 i c u
  s=${s//"$BS"/"$BS$BS"}
  s=${s//"$DQ"/"$BS$DQ"}
  s=${s//$'\n'/"${BS}n"}
  s=${s//$'\r'/"${BS}r"}
  s=${s//$'\t'/"${BS}t"}
  for i in {1..31}; do
    printf -v c "\\x$(printf %02x "$i")"
    if [[ $s == *"$c"* ]]; then
      printf -v u '%su%04x' "$BS" "$i"
      s=${s//"$c"/"$u"}
    fi
  done
  printf '"%s"' "$s"
}

log_call() {
  local parts=() a joined
  for a in "$@"; do parts+=("$(json_str "$a")"); done
  joined=$(
    IFS=,
    printf '%s' "${parts[*]}"
  )
  printf '{"argv":[%s],"time":"%s"}\n' "$joined" "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" >>"$LOG"
}

log_call "$@"

# The JSON string of a command's output, or null when it fails.
json_output() {
  local out
  if out=$("$@" 2>/dev/null); then json_str "$out"; else printf null; fi
}

# What the host's Asterisk holds now: its AstDB exactly (hex, as PbxHost.astdb() reads it) and its loaded mailboxes.
log_asterisk() {
  local astdb vm
  astdb=$(json_output "$ROOT/bin/asterisk" -rx 'database query "SELECT hex(key) AS k, hex(value) AS v FROM astdb ORDER BY key"')
  vm=$(json_output "$ROOT/bin/asterisk" -rx 'voicemail show users')
  printf '{"time":"%s","astdb":%s,"voicemailUsers":%s}\n' "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" "$astdb" "$vm" >>"$ASTERISK_LOG"
}

# Value of $amp_conf['KEY'] in the config file (single- or double-quoted PHP string, last assignment wins).
conf_get() {
  sed -n "s/^[[:space:]]*\\\$amp_conf\\[['\"]$1['\"]\\][[:space:]]*=[[:space:]]*['\"]\\(.*\\)['\"][[:space:]]*;.*\$/\\1/p" "$CONF" |
    tail -n 1
}

# Runs SQL ($1) on the FreePBX database with the config file's credentials; extra args go to the client.
db() {
  local sql=$1 user pass host port name
  shift
  [ -r "$CONF" ] || {
    echo "Unable to read $CONF" >&2
    return 1
  }
  user=$(conf_get AMPDBUSER)
  pass=$(conf_get AMPDBPASS)
  host=$(conf_get AMPDBHOST)
  port=$(conf_get AMPDBPORT)
  name=$(conf_get AMPDBNAME)
  local args=(-h "${host:-localhost}" -u "$user" --default-character-set=utf8mb4)
  [ -n "$port" ] && args+=(-P "$port")
  MYSQL_PWD=$pass "$CLIENT" "${args[@]}" "$@" "${name:-asterisk}" -e "$sql"
}

# Symfony-style error block on stderr.
error_block() {
  local msg="  $1  " pad
  pad=$(printf '%*s' "${#msg}" '')
  {
    echo
    [ -n "${2-}" ] && echo "$2"
    printf '%s\n%s\n%s\n\n' "$pad" "$msg" "$pad"
  } >&2
}

is_global_option() {
  case $1 in
  -q | --quiet | -v | -vv | -vvv | --verbose | -n | --no-interaction | --ansi | --no-ansi) return 0 ;;
  *) return 1 ;;
  esac
}

cmd_reload() {
  local json=0 dry=0 keep_flag=0 a msg out shell_env=""
  # bash sets SHELL itself when it is missing, but exports it only if it came from the environment.
  [[ $(declare -p SHELL 2>/dev/null) == "declare -x"* ]] && shell_env=$SHELL
  for a in "$@"; do
    case $a in
    --json) json=1 ;;
    --dry-run) dry=1 ;;
    --dont-reload-asterisk) keep_flag=1 ;;
    --skip-registry-checks) ;;
    *)
      is_global_option "$a" && continue
      error_block "The \"$a\" option does not exist."
      return 1
      ;;
    esac
  done
  # Like Reload.class.php: plain lines on a shell (SHELL in the environment), {"message": ...} lines with --json
  # or without SHELL. Global options such as -q are accepted and ignored.
  say() {
    if [ "$json" = 1 ] || [ -z "$shell_env" ]; then printf '{"message":%s}\n' "$(json_str "$1")"; else printf '%s\n' "$1"; fi
  }
  fail() {
    if [ "$json" = 1 ]; then
      printf '{"error":%s,"trace":"#0 {main}"}\n' "$(json_str "$1")"
      exit 255
    fi
    error_block "$1" "In Reload.class.php line 86:"
    echo "r [--json] [--dry-run] [--skip-registry-checks] [--dont-reload-asterisk]" >&2
    exit 1
  }
  if [ -e "$RELOAD_LOCKED" ]; then
    local left
    left=$(cat "$RELOAD_LOCKED")
    if [ "$left" = always ] || { [[ $left =~ ^[0-9]+$ ]] && [ "$left" -gt 0 ]; }; then
      [ "$left" = always ] || echo $((left - 1)) >"$RELOAD_LOCKED"
      printf '{"error":"Process is already running.","trace":"Process ID : %s"}' "$LOCK_PID"
      exit 255
    fi
  fi
  log_asterisk
  say "Reload Started"
  if [ -e "$FAIL_RELOAD" ]; then
    msg=$(cat "$FAIL_RELOAD")
    fail "${msg:-Unable to connect to Asterisk Manager}"
  fi
  if [ "$dry" = 0 ] && [ "$keep_flag" = 0 ]; then
    if ! out=$(db "UPDATE admin SET value = 'false' WHERE variable = 'need_reload'" 2>&1); then
      fail "Successful reload, but could not clear reload flag due to a database error: $out"
    fi
  fi
  say "Reload Complete"
}

cmd_trunks() {
  local list=0 json=0 enable="" disable="" a
  while [ $# -gt 0 ]; do
    a=$1
    shift
    case $a in
    --list) list=1 ;;
    --json) json=1 ;;
    --enable=*) enable=${a#*=} ;;
    --disable=*) disable=${a#*=} ;;
    --enable | --disable)
      [ $# -gt 0 ] || {
        error_block "The \"$a\" option requires a value."
        return 1
      }
      if [ "$a" = --enable ]; then enable=$1; else disable=$1; fi
      shift
      ;;
    *)
      is_global_option "$a" && continue
      error_block "fwconsole stand-in: unsupported trunks argument \"$a\" (supported: --list [--json], --enable ID, --disable ID)"
      return 1
      ;;
    esac
  done
  local id
  for id in "$disable" "$enable"; do
    if [ -n "$id" ] && ! [[ $id =~ ^[0-9]+$ ]]; then
      error_block "Invalid trunk id \"$id\""
      return 1
    fi
  done
  if [ -n "$disable" ]; then
    echo "Disabling Trunk $disable Run fwconsole reload"
    db "UPDATE trunks SET disabled = 'on' WHERE trunkid = $disable; UPDATE admin SET value = 'true' WHERE variable = 'need_reload'" || return 1
  fi
  if [ -n "$enable" ]; then
    echo "Enabling Trunk $enable Run fwconsole reload"
    db "UPDATE trunks SET disabled = 'off' WHERE trunkid = $enable; UPDATE admin SET value = 'true' WHERE variable = 'need_reload'" || return 1
  fi
  if [ "$list" = 1 ]; then
    if [ "$json" = 1 ]; then
      # Real: json_encode() of PDO rows (trunkid, tech, channelid, disabled), no trailing newline.
      db "SELECT COALESCE(JSON_COMPACT(JSON_ARRAYAGG(JSON_OBJECT('trunkid', trunkid, 'tech', tech, 'channelid', channelid, 'disabled', disabled) ORDER BY trunkid)), '[]') FROM trunks" -N -B -r |
        tr -d '\n'
      return "${PIPESTATUS[0]}"
    fi
    db 'SELECT trunkid AS ID, tech AS TECH, channelid AS `Channel ID`, disabled AS Disabled FROM trunks ORDER BY trunkid' -t
    return
  fi
  if [ -z "$enable$disable" ]; then
    error_block "fwconsole stand-in: interactive trunk selection is not supported; use --list, --enable ID or --disable ID"
    return 1
  fi
}

while [ $# -gt 0 ] && is_global_option "$1"; do shift; done

case "${1-}" in
--version | -V)
  version=$(cat "$ROOT/etc/fwconsole-version" 2>/dev/null)
  echo "FW Console - FreePBX Utility ${version:-17.0.19}"
  ;;
r | reload)
  shift
  cmd_reload "$@"
  ;;
trunks)
  shift
  cmd_trunks "$@"
  ;;
"" | list | help | --help | -h)
  echo "FW Console - FreePBX Utility (test stand-in). Commands: reload (r), trunks. Options: --version"
  ;;
*)
  error_block "Command \"$1\" is not defined."
  exit 1
  ;;
esac
