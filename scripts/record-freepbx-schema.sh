#!/usr/bin/env bash
# Records FreePBX 17's own table definitions into the console's schema fixtures, from the real FreePBX 17
# of the PBX testbed (../shared/testbed, `up` started): test/fixtures/freepbx/schema.sql (database
# `asterisk`: the tables the console reads and writes, plus the rows it relies on) and cdr.sql (database
# `asteriskcdrdb`, table `cdr`): the record of the tables the console relies on (test/pbx-host loads the
# testbed baseline's whole dump instead, and its self-test checks each of these tables is there).
#
# Read only: mariadb-dump --single-transaction (a consistent snapshot, no LOCK TABLES) and SELECTs in a
# READ ONLY transaction. It never writes to the testbed, and runs no `up`/`reset`/`fwconsole`.
#
#   scripts/record-freepbx-schema.sh            # rewrite the two fixtures
#   scripts/record-freepbx-schema.sh --check    # exit 1 (and show the diff) if they differ from the testbed
#
# Env: PBX_TESTBED_SOCKET (default /run/pbx-testbed/mysql/mysqld.sock; root over the socket),
#      FIXTURE_DIR (default test/fixtures/freepbx next to this script).
set -euo pipefail

SOCK=${PBX_TESTBED_SOCKET:-/run/pbx-testbed/mysql/mysqld.sock}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${FIXTURE_DIR:-$HERE/../test/fixtures/freepbx}
CHECK=0
case "${1:-}" in
  --check) CHECK=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

# The tables of database `asterisk` the console reads or writes (src/server/pbx/), in the fixture's order.
# The first 15 are the hand-made fixture's tables; the last two are read by the console and were missing:
# freepbx_settings (ASTETCDIR: where voicemail.conf is, src/server/pbx/host/host.ts) and kvstore_Sipsettings
# (SIP Settings' binds: a new trunk's UDP transport, src/server/pbx/objects/ownership.ts).
TABLES=(
  devices users sip pjsip
  trunks trunk_dialpatterns
  outbound_routes outbound_route_patterns outbound_route_trunks outbound_route_sequence
  incoming
  paging_config paging_groups
  admin
  freepbx_settings
  kvstore_Sipsettings
)
# Advanced Settings rows the console (ASTETCDIR) and test/pbx-host (ASTSPOOLDIR, voicemail boxes) use; the
# test host points their values at its own directories.
SETTINGS="'ASTETCDIR','ASTSPOOLDIR'"

[ -S "$SOCK" ] || { echo "no testbed MariaDB socket at $SOCK (is the testbed up?)" >&2; exit 1; }
sql() { mariadb --no-defaults --socket="$SOCK" -uroot --default-character-set=utf8mb4 -N -B -r "$@"; }
ro() { sql -e "SET SESSION TRANSACTION READ ONLY; START TRANSACTION; $1; COMMIT;"; }
dump() {
  mariadb-dump --no-defaults --socket="$SOCK" -uroot --default-character-set=utf8mb4 --single-transaction \
    --skip-comments --compact --skip-add-drop-table --skip-add-locks --skip-disable-keys --skip-tz-utc \
    --order-by-primary "$@"
}
# mariadb-dump's --compact output minus what is not schema: the client "sandbox mode" line (older clients
# reject it), the character_set_client save/restore around each CREATE (SET NAMES is in the header
# instead), and AUTO_INCREMENT counters (testbed state). A blank line after each statement.
clean() {
  sed -E \
    -e '/^\/\*M!999999\\- enable the sandbox mode \*\/ *$/d' \
    -e '/^\/\*!40101 SET (@saved_cs_client|character_set_client) += .*\*\/;$/d' \
    -e 's/ AUTO_INCREMENT=[0-9]+//' \
    -e 's/;$/;\n/'
}

have=$(ro "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'asterisk'")
for t in "${TABLES[@]}"; do
  grep -qx "$t" <<<"$have" || { echo "table asterisk.$t is missing on the testbed" >&2; exit 1; }
done
versions=$(ro "SELECT GROUP_CONCAT(CONCAT(modulename, ' ', version) ORDER BY FIELD(modulename, 'core', 'framework') DESC,
  modulename SEPARATOR ', ') FROM asterisk.modules WHERE modulename IN ('framework', 'core', 'paging', 'sipsettings')")
server=$(ro "SELECT VERSION()")
dbinfo() {
  ro "SELECT CONCAT(DEFAULT_CHARACTER_SET_NAME, ' / ', DEFAULT_COLLATION_NAME) FROM information_schema.SCHEMATA
    WHERE SCHEMA_NAME = '$1'"
}
need_reload=$(ro "SELECT CONCAT('INSERT INTO \`admin\` (\`variable\`, \`value\`) VALUES (', QUOTE(variable), ', ',
  QUOTE('false'), ');') FROM asterisk.admin WHERE variable = 'need_reload'")
[ -n "$need_reload" ] || { echo "asterisk.admin has no need_reload row" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

{
  cat <<EOF
-- FreePBX 17's own tables of database \`asterisk\` that the console reads and writes, as FreePBX creates
-- them (column order, types, NULL/defaults, keys, engine, character set and collation). Recorded by
-- scripts/record-freepbx-schema.sh (do not edit by hand, re-run the script) from the PBX testbed's real
-- FreePBX 17: $versions; MariaDB $server.
-- The database's default is $(dbinfo asterisk). Rows: admin.need_reload as after
-- \`fwconsole reload\` ('false'), and the Advanced Settings rows ASTETCDIR and ASTSPOOLDIR as installed.
-- kvstore_Sipsettings is empty (no SIP Settings saved: a new trunk gets 0.0.0.0-udp).
--   mariadb -e 'CREATE DATABASE asterisk CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci' && mariadb asterisk < schema.sql

SET NAMES utf8mb4;

EOF
  dump --no-data asterisk "${TABLES[@]}" | clean
  echo "$need_reload"
  echo
  dump --no-create-info --complete-insert --skip-extended-insert --where="keyword IN ($SETTINGS)" \
    asterisk freepbx_settings | clean
} >"$tmp/schema.sql"

{
  cat <<EOF
-- FreePBX's call detail record table: database \`asteriskcdrdb\`, table \`cdr\`, as FreePBX 17's cdr module
-- creates it. Asterisk's cdr_adaptive_odbc writes one row per call leg: the classic Asterisk columns plus
-- did, recordingfile, cnum/cnam, outbound_cnum/cnam, dst_cnam, linkedid, peeraccount, sequence;
-- \`linkedid\` groups the legs of one call, \`sequence\` orders them. disposition is one of ANSWERED,
-- NO ANSWER, BUSY, FAILED, CONGESTION. duration counts from the start of the leg, billsec from answer.
-- FreePBX reads it with the \`asterisk\` database's credentials (AMPDBUSER/AMPDBPASS in /etc/freepbx.conf);
-- the database name is the CDRDBNAME setting, default \`asteriskcdrdb\`.
-- Recorded by scripts/record-freepbx-schema.sh (do not edit by hand, re-run the script) from the PBX
-- testbed's real FreePBX 17: $(ro "SELECT GROUP_CONCAT(CONCAT(modulename, ' ', version) ORDER BY
  FIELD(modulename, 'cdr', 'framework') DESC SEPARATOR ', ') FROM asterisk.modules WHERE modulename IN ('framework', 'cdr')"); MariaDB $server.
-- The database's default is $(dbinfo asteriskcdrdb).
--   mariadb -e 'CREATE DATABASE asteriskcdrdb CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci' && mariadb asteriskcdrdb < cdr.sql

SET NAMES utf8mb4;

EOF
  dump --no-data asteriskcdrdb cdr | clean
} >"$tmp/cdr.sql"

# Trailing blank line off.
for f in schema.sql cdr.sql; do
  printf '%s\n' "$(cat "$tmp/$f")" >"$tmp/$f.final"
done

if [ "$CHECK" = 1 ]; then
  rc=0
  for f in schema.sql cdr.sql; do
    diff -u "$OUT/$f" "$tmp/$f.final" || rc=1
  done
  [ "$rc" = 0 ] && echo "fixtures match the testbed"
  exit "$rc"
fi
mkdir -p "$OUT"
for f in schema.sql cdr.sql; do
  mv "$tmp/$f.final" "$OUT/$f"
  echo "wrote $OUT/$f"
done
