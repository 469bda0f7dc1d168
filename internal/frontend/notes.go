package frontend

import (
	"errors"
	"strings"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/internal/model"
)

// DefaultsNotes are the lines that follow the error of a turn when mm ran
// with no config file and could not reach the model server — in line
// mode, -p and the window alike: no config was found, where the model
// came from (the built-in default, or --model when modelFlag), and, for
// llmman, what it is and where to get it. None otherwise: with a config,
// the error alone says it.
func DefaultsNotes(cfg *config.Config, modelFlag bool, err error) []string {
	var me *model.Error
	if cfg.Path != "" || !errors.As(err, &me) || me.Kind != model.ErrUnreachable {
		return nil
	}
	notes := []string{NoConfigNotice(cfg.Model, modelFlag)}
	if strings.HasPrefix(cfg.Model, "llmman/") {
		notes = append(notes, LlmmanNotice)
	}
	return notes
}

// NoConfigNotice says mm found no config, and which model it used: its
// built-in one, or the one --model gave (modelFlag).
func NoConfigNotice(model string, modelFlag bool) string {
	const none = "mm: no config file was found (./agent.yaml, ~/.config/mm/agent.yaml, or -c FILE)"
	if modelFlag {
		return none + "; the model, " + model + ", came from --model"
	}
	return none + ", so mm used its built-in model " + model
}

// LlmmanNotice says what llmman is and where to get it.
const LlmmanNotice = "mm: llmman is the local model server mm uses by default (https://github.com/llmmanorg/llmman: install it, then run llmman serve); " +
	`to use Ollama, llama.cpp or another server, write an agent.yaml naming it (README: "Point mm at a model server")`
