# The lab's BMC: openipmi's ipmi_sim on 127.0.0.1, configured here for the
# bare-metal stand-ins (scripts/lab-server.sh), whose power-on command
# execs their qemu.  Sourced, not run.
#
#	. scripts/bmc.sh
#	port=$(bmc_free_port) || ...
#	bmc_write_config DIR NAME PORT STARTCMD STARTNOW POWEROFF_WAIT KILL_WAIT

# Prints a free UDP port for the BMC's LAN whose next port (its serial
# console) is free for TCP too; fails after 20 tries.
bmc_free_port()
{
	local port

	for port in $(shuf -i 20000-40000 -n 20); do
		ss -Hlun "sport = :$port" | grep -q . && continue
		ss -Hltn "sport = :$((port + 1))" | grep -q . && continue
		echo "$port"
		return 0
	done
	return 1
}

# Writes DIR/lan.conf and DIR/lab.emu: BMC NAME on 127.0.0.1 PORT (its
# serial port PORT + 1), user "lab" whose password is in DIR/password,
# powering on by running STARTCMD (started at once if STARTNOW is true),
# waiting POWEROFF_WAIT s for a soft off and KILL_WAIT s before SIGKILL.
bmc_write_config()
{
	local d=$1 name=$2 port=$3 cmd=$4 now=$5 offwait=$6 killwait=$7

	mkdir -p "$d"
	printf 'pass\n' >"$d/password"
	chmod 600 "$d/password"
	cat >"$d/lan.conf" <<CONF
name "$name"
set_working_mc 0x20
  startlan 1
    addr 127.0.0.1 $port
    priv_limit admin
    allowed_auths_callback none md2 md5 straight
    allowed_auths_user none md2 md5 straight
    allowed_auths_operator none md2 md5 straight
    allowed_auths_admin none md2 md5 straight
    guid a123456789abcdefa123456789abcdef
  endlan
  serial 15 127.0.0.1 $((port + 1)) codec VM
  startcmd "$cmd"
  startnow $now
  poweroff_wait $offwait
  kill_wait $killwait
  user 2 true "lab" "pass" admin 10 none md2 md5 straight
CONF
	cat >"$d/lab.emu" <<'EMU'
mc_setbmc 0x20
mc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02
sel_enable 0x20 1000 0x0a
mc_enable 0x20
EMU
}
