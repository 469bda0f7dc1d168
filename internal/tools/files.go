package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/internal/sandbox"
	"github.com/mm-agent/mm/orchestrator"
)

const (
	readCap     = 256 << 10 // bytes of a file read_file returns
	binarySniff = 8 << 10   // bytes looked at for a NUL
)

// resolve makes path absolute against dir.
func resolve(dir, path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(dir, path)
}

// fileErr is a file error for the model: "error: <op>: <path>: <reason>"
// with the path as the model gave it and the bare system reason.
func fileErr(op, path string, err error) orchestrator.Result {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	return failure("%s: %s: %v", op, path, err)
}

type readTool struct{ dir string }

func (t *readTool) Def() model.ToolDef {
	return model.ToolDef{
		Name: "read_file",
		Description: "Read a text file and return its contents. " +
			"Relative paths are relative to the working directory.",
		Parameters: schema("path", "Path of the file to read."),
	}
}

func (t *readTool) Run(_ context.Context, input json.RawMessage) orchestrator.Result {
	var args struct {
		Path *string `json:"path"`
	}
	if e := decode(input, &args); e != "" {
		return failure("%s", e)
	}
	if e := required("path", args.Path); e != "" {
		return failure("%s", e)
	}
	path := *args.Path
	f, err := os.Open(resolve(t.dir, path))
	if err != nil {
		return fileErr("read", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fileErr("read", path, err)
	}
	if info.IsDir() {
		return failure("read: %s: is a directory", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, readCap+1))
	if err != nil {
		return fileErr("read", path, err)
	}
	truncated := len(data) > readCap
	total := int64(len(data))
	if truncated {
		if info.Mode().IsRegular() && info.Size() > total {
			total = info.Size()
		} else {
			n, _ := io.Copy(io.Discard, f)
			total += n
		}
	}
	if bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
		return failure("%s is a binary file (%d bytes)", path, total)
	}
	if !truncated {
		return output(string(data))
	}
	data = data[:readCap]
	// Do not end on half a character.
	for i := 0; i < utf8.UTFMax && len(data) > 0; i++ {
		if r, size := utf8.DecodeLastRune(data); r != utf8.RuneError || size != 1 {
			break
		}
		data = data[:len(data)-1]
	}
	var sb strings.Builder
	sb.Write(data)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "[… truncated: %d bytes in all]", total)
	return output(sb.String())
}

type writeTool struct {
	dir string
	box *sandbox.Files // nil: no sandbox
}

func (t *writeTool) Def() model.ToolDef {
	return model.ToolDef{
		Name: "write_file",
		Description: "Write content to a file, replacing the file if it exists and creating " +
			"missing parent directories. Relative paths are relative to the working directory.",
		Parameters: schema(
			"path", "Path of the file to write.",
			"content", "The complete new contents of the file.",
		),
	}
}

func (t *writeTool) Run(_ context.Context, input json.RawMessage) orchestrator.Result {
	var args struct {
		Path    *string `json:"path"`
		Content *string `json:"content"`
	}
	if e := decode(input, &args); e != "" {
		return failure("%s", e)
	}
	if e := required("path", args.Path); e != "" {
		return failure("%s", e)
	}
	if args.Content == nil { // empty content is a valid (empty) file
		return failure(`missing "content"`)
	}
	path := *args.Path
	if err := writeFile(t.box, t.dir, path, []byte(*args.Content)); err != nil {
		return fileErr("write", path, err)
	}
	return output(fmt.Sprintf("wrote %d bytes to %s", len(*args.Content), path))
}

type editTool struct {
	dir string
	box *sandbox.Files // nil: no sandbox
}

func (t *editTool) Def() model.ToolDef {
	return model.ToolDef{
		Name: "edit_file",
		Description: "Replace one exact piece of text in a file. \"old\" must occur exactly once " +
			"in the file, matching its spaces and line breaks; include nearby lines to make it unique. " +
			"Relative paths are relative to the working directory.",
		Parameters: schema(
			"path", "Path of the file to edit.",
			"old", "The exact text to replace; must occur exactly once in the file.",
			"new", "The text to put in its place (may be empty to delete).",
		),
	}
}

func (t *editTool) Run(_ context.Context, input json.RawMessage) orchestrator.Result {
	var args struct {
		Path *string `json:"path"`
		Old  *string `json:"old"`
		New  *string `json:"new"`
	}
	if e := decode(input, &args); e != "" {
		return failure("%s", e)
	}
	if e := required("path", args.Path); e != "" {
		return failure("%s", e)
	}
	if args.Old == nil {
		return failure(`missing "old"`)
	}
	if *args.Old == "" {
		return failure(`"old" is empty; give the exact text to replace (use write_file to create a file)`)
	}
	if args.New == nil {
		return failure(`missing "new"`)
	}
	path := *args.Path
	data, err := readFile(t.box, t.dir, path)
	if err != nil {
		return fileErr("edit", path, err)
	}
	text := string(data)
	switch n := strings.Count(text, *args.Old); n {
	case 0:
		return failure("old text not found in %s", path)
	case 1:
	default:
		return failure("old text occurs %d times in %s; give more context so it occurs once", n, path)
	}
	text = strings.Replace(text, *args.Old, *args.New, 1)
	// writeFile keeps the existing file's mode.
	if err := writeFile(t.box, t.dir, path, []byte(text)); err != nil {
		return fileErr("edit", path, err)
	}
	return output("edited " + path)
}
