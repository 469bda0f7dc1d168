package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/mm-agent/mm/internal/frontend"
	"github.com/mm-agent/mm/orchestrator"
)

// model is the window: the banner, the conversation, the consent dialog,
// a status line and the input. It runs on Bubble Tea's goroutine only;
// turns run on their own goroutines and reach it through messages.
type model struct {
	app     *frontend.App
	session *orchestrator.Session
	ctx     context.Context // the jobs' parent
	send    func(tea.Msg)   // Program.Send, set before the program runs
	// consent puts the turns' consent questions (and their asked
	// agents') in the dialog; set before the program runs.
	consent orchestrator.Consent
	// modelFlag: the model came from --model (Options.ModelFlag).
	modelFlag bool
	jobs      *sync.WaitGroup // the jobs' goroutines, waited for at exit

	st     styles
	tr     *transcript
	vp     viewport.Model
	input  textinput.Model
	spin   spinner.Model
	width  int
	height int
	head   []string // the banner and its rule, as layout made them
	box    []string // the consent dialog, as layout made it

	running *job
	queue   []string      // lines sent during a job, run after it
	asks    []*consentReq // consent questions, the first one in the dialog
	// dialogSince is when the question now in the dialog appeared.
	dialogSince time.Time
	history     []string // lines sent, for Up and Down
	recall      int      // index in history while recalling; len(history) when not

	interrupted bool // quit with Ctrl-C: exit 130 like line mode
}

func newModel(ctx context.Context, app *frontend.App, s *orchestrator.Session) *model {
	st := newStyles()
	in := textinput.New()
	in.Prompt = "› "
	in.Placeholder = "Type a prompt, or /help"
	in.SetVirtualCursor(false)
	in.Focus()
	m := &model{
		app: app, session: s, ctx: ctx, send: func(tea.Msg) {}, jobs: &sync.WaitGroup{},
		st: st, tr: newTranscript(st), vp: viewport.New(), input: in,
		spin: spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(st.spinner)),
	}
	m.vp.MouseWheelEnabled = false
	return m
}

func (m *model) Init() tea.Cmd { return nil }

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		cmd = m.key(msg)
	case tea.PasteMsg:
		if len(m.asks) == 0 {
			m.input, cmd = m.input.Update(tea.PasteMsg{Content: strings.ReplaceAll(msg.Content, "\n", " ")})
		}
	case eventMsg:
		if m.running != nil {
			// The model reasons until it writes or calls a tool; the
			// status line says so, as line mode's thinking… does.
			m.running.thinking = msg.ev.Kind == orchestrator.Reasoning && len(msg.ev.Agent) == 0
		}
		m.tr.show(msg.ev)
	case turnDoneMsg:
		m.turnDone(msg.res)
		cmd = m.next()
	case compactDoneMsg:
		if msg.err != nil {
			m.tr.line(kindError, msg.err.Error())
		} else {
			m.tr.line(kindNotice, fmt.Sprintf(orchestrator.CompactedNotice, msg.n))
		}
		cmd = m.next()
	case askDoneMsg:
		m.askDone(msg)
		cmd = m.next()
	case consentAskMsg:
		if len(m.asks) == 0 {
			m.dialogSince = time.Now()
		}
		m.asks = append(m.asks, msg.req)
	case consentGoneMsg:
		m.dropAsk(msg.req)
	case stderrMsg:
		m.tr.line(kindDim, string(msg))
	case spinner.TickMsg:
		if m.running != nil {
			m.spin, cmd = m.spin.Update(msg)
		}
	}
	m.layout()
	return m, cmd
}

// key handles a key press. A question in the dialog takes y, n and Esc;
// otherwise the keys edit the input, which stays usable during a turn.
func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	if len(m.asks) > 0 {
		if time.Since(m.dialogSince) < dialogGrace && k.String() != "ctrl+c" {
			return nil // typed before the question could be read: not an answer
		}
		switch k.String() {
		case "y", "Y":
			m.answer(true)
		case "n", "N", "esc":
			m.answer(false)
		case "ctrl+c":
			m.answer(false)
			m.abort()
		}
		return nil
	}
	switch k.String() {
	case "enter":
		line := strings.TrimSpace(m.input.Value())
		m.input.Reset()
		return m.submit(line)
	case "esc":
		m.abort()
		return nil
	case "ctrl+c":
		switch {
		case m.input.Value() != "":
			m.input.Reset()
		case m.running != nil:
			m.abort()
		default:
			m.interrupted = true
			return tea.Quit
		}
		return nil
	case "ctrl+d":
		if m.input.Value() == "" && m.running == nil {
			return tea.Quit
		}
	case "ctrl+z":
		return tea.Suspend
	case "pgup":
		m.vp.PageUp()
		return nil
	case "pgdown":
		m.vp.PageDown()
		return nil
	case "shift+up":
		m.vp.ScrollUp(1)
		return nil
	case "shift+down":
		m.vp.ScrollDown(1)
		return nil
	case "up", "down":
		m.recallLine(k.String() == "up")
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// dialogGrace is how long a new consent question ignores keys: the
// input stays usable during a turn, and a "y" or "n" typed in a word just
// as the dialog appears must not answer a question no one has read.
const dialogGrace = 500 * time.Millisecond

// answer replies to the question in the dialog.
func (m *model) answer(ok bool) {
	req := m.asks[0]
	m.asks = m.asks[1:]
	m.dialogSince = time.Now()
	req.answer <- ok
}

func (m *model) dropAsk(req *consentReq) {
	for i, r := range m.asks {
		if r == req {
			m.asks = append(m.asks[:i:i], m.asks[i+1:]...)
			return
		}
	}
}

// recallLine puts an earlier line back in the input (Up), or a later one
// (Down).
func (m *model) recallLine(up bool) {
	switch {
	case up && m.recall > 0:
		m.recall--
	case !up && m.recall < len(m.history):
		m.recall++
	default:
		return
	}
	line := ""
	if m.recall < len(m.history) {
		line = m.history[m.recall]
	}
	m.input.SetValue(line)
	m.input.CursorEnd()
}

const helpText = `Type a prompt and press Enter. You can type while a turn runs: what you
send then waits for the turn to end.
  /help      this help
  /abort     cancel the running turn (Esc too; Ctrl-C at an empty input)
  /compact   replace the earlier turns by a summary the model writes
  /exit      leave mm (Ctrl-C or Ctrl-D at an empty input, when no turn runs)
  PgUp, PgDn, Shift+Up, Shift+Down scroll the conversation; Up and Down
  bring back what you sent.`

// echo shows a command that runs at once (/help, an unknown one) as a
// prompt is shown, "› /help" after a blank line, so that its answer
// does not seem to follow the last turn's.
func (m *model) echo(line string) {
	m.tr.add(&entry{kind: kindPrompt, text: line})
}

// submit runs an input line: a command now, a prompt or an /ask… as a job
// (after the running one, if any).
func (m *model) submit(line string) tea.Cmd {
	if line == "" {
		return nil
	}
	if n := len(m.history); n == 0 || m.history[n-1] != line {
		m.history = append(m.history, line)
	}
	m.recall = len(m.history)
	switch frontend.Parse(line) {
	case frontend.Exit:
		return tea.Quit
	case frontend.Help:
		m.echo(line)
		m.tr.line(kindNotice, helpText)
		if m.app.Relay != nil {
			m.tr.line(kindNotice, frontend.AskHelp(m.app.Config.AgentNames()))
		}
		return nil
	case frontend.Abort:
		if m.running == nil {
			m.tr.line(kindDim, "no turn is running")
		}
		m.abort()
		return nil
	case frontend.Unknown:
		m.echo(line)
		m.tr.line(kindError, frontend.UnknownCommand(line))
		return nil
	}
	if m.running != nil {
		m.queue = append(m.queue, line)
		return nil
	}
	return m.start(line)
}
