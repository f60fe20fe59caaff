#!/usr/bin/env bash
# Installs the Debian packages the tests drive for real, when missing:
# Chromium (browser tests), MariaDB and OpenSSH servers (PBX-side tests), openssl,
# fail2ban (the sign-in failure filter, the firewall actions), systemd's socket activation tool, cron (crontab, which
# FreePBX's reload needs on the real-PBX testbed), sox with its MP3 module (system recordings).
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || need+=(chromium)
[ -x /usr/sbin/mariadbd ] || [ -x /usr/bin/mariadbd ] || need+=(mariadb-server)
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
# fail2ban-regex checks the sign-in failure filter against the console's real log (test/security); the
# firewall tests run a private fail2ban-server and its fail2ban-client (test/server, test/browser).
command -v fail2ban-regex >/dev/null 2>&1 && command -v fail2ban-server >/dev/null 2>&1 || need+=(fail2ban)
# systemd-socket-activate runs the console's fail2ban helper per connection as its socket unit does.
command -v systemd-socket-activate >/dev/null 2>&1 || need+=(systemd)
# FreePBX's `fwconsole reload` on the testbed (test/pbx) checks its own line stays in the crontab.
[ -x /usr/bin/crontab ] || need+=(cron)
# sox converts uploaded system recordings on the PBX host (as FreePBX's Media class does), MP3 through its
# mp3 format module; the tests make their WAV and MP3 tones with it too (test/server, test/pbx).
command -v sox >/dev/null 2>&1 || need+=(sox)
[ -n "$(ls /usr/lib/*/sox/libsox_fmt_mp3.so 2>/dev/null)" ] || need+=(libsox-fmt-mp3)
# The off-site backup format's decrypt script in ADR 0064 is run as written, with Debian's Python (test/server).
/usr/bin/python3 -c "import cryptography" >/dev/null 2>&1 || need+=(python3-cryptography)

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi

echo "installing Debian packages: ${need[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "need root (or sudo) to install: ${need[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
