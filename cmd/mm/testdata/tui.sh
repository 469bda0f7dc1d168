# tui.sh drives mm in a real terminal for the end-to-end scripts: a tmux
# server of its own, named $TUI, with one session "mm" whose pane runs the
# command. Scripts call it as sh $TUISH (set by TestScripts).
#
#	sh tui.sh start [-ctrlc] WxH COMMAND
#	                             start COMMAND (at most 30 s), then say how
#	                             it exited ("mm exited N")
#	sh tui.sh wait REGEXP [-e]   wait up to 10 s for a line of the screen
#	                             matching REGEXP (grep -E), print the screen
#	                             (-e: with its SGR codes)
case $1 in
start)
	# The watchdog that stops COMMAND after 30 s. With -ctrlc, for line
	# mode, where Ctrl-C on the terminal signals the whole foreground
	# group: only mm may take it (timeout --foreground would pass a second
	# SIGINT on to mm, which then leaves at its prompt), so the shell and
	# the watchdog ignore it; mm handles it all the same.
	if [ "$2" = -ctrlc ]; then
		shift
		run="trap '' INT; sh -c '(sleep 30; kill -9 \$\$) & exec $3'"
	else
		run="timeout --foreground 30 $3"
	fi
	# A server left by a run before: kill it and wait until it says no more.
	# One still on its way out may yet take the new session's connection and
	# drop it ("server exited unexpectedly"): the start is then tried again,
	# for up to 5 s.
	tmux -L "$TUI" kill-server 2>/dev/null
	while tmux -L "$TUI" list-sessions >/dev/null 2>&1; do sleep 0.1; done
	try=0
	until tmux -L "$TUI" -f /dev/null new-session -d -s mm -x "${2%x*}" -y "${2#*x}" \
		"$run; echo \"mm exited \$?\"; sleep 10" 2>.tmux-error; do
		try=$((try + 1))
		if [ $try -ge 50 ]; then cat .tmux-error >&2; exit 1; fi
		tmux -L "$TUI" kill-server 2>/dev/null
		sleep 0.1
	done
	;;
wait)
	i=0
	while :; do
		tmux -L "$TUI" capture-pane -p $3 -t mm >.screen 2>/dev/null
		grep -Eq -- "$2" .screen && break
		i=$((i + 1))
		if [ $i -ge 100 ]; then
			cat .screen
			echo "no line of the screen matches $2" >&2
			exit 1
		fi
		sleep 0.1
	done
	cat .screen
	;;
esac
