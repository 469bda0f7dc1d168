package tui

import "charm.land/lipgloss/v2"

// styles are the window's looks. Colours are the terminal's sixteen base
// colours, so they follow the user's theme; Bubble Tea drops them (keeping
// bold and faint) when NO_COLOR is set.
type styles struct {
	banner  lipgloss.Style // the start-up line
	rule    lipgloss.Style // the lines around the conversation
	prompt  lipgloss.Style // what the user sent
	dim     lipgloss.Style // the reference's "ligne grisée": failures, the ⚙ footer
	failed  lipgloss.Style // a failed tool call's title
	err     lipgloss.Style // a turn or command that went wrong
	agent   lipgloss.Style // an asked agent's name and the bar of its block
	dialog  lipgloss.Style // the consent dialog's box
	key     lipgloss.Style // the keys a dialog accepts
	status  lipgloss.Style // the line above the input
	spinner lipgloss.Style
}

func newStyles() styles {
	return styles{
		banner:  lipgloss.NewStyle().Bold(true),
		rule:    lipgloss.NewStyle().Faint(true),
		prompt:  lipgloss.NewStyle().Bold(true),
		dim:     lipgloss.NewStyle().Faint(true),
		failed:  lipgloss.NewStyle().Foreground(lipgloss.Red),
		err:     lipgloss.NewStyle().Foreground(lipgloss.Red),
		agent:   lipgloss.NewStyle().Foreground(lipgloss.Cyan),
		dialog:  lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Yellow).Padding(0, 1),
		key:     lipgloss.NewStyle().Bold(true),
		status:  lipgloss.NewStyle().Faint(true),
		spinner: lipgloss.NewStyle().Foreground(lipgloss.Cyan),
	}
}
