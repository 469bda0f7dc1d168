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
	editCap     = 16 << 20  // bytes of a file edit_file reads whole (and writes back)
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

func (t *readTool) Run(ctx context.Context, input json.RawMessage) orchestrator.Result {
	var args struct {
		Path *string `json:"path"`
	}
	if e := decode(input, &args); e != "" {
		return failure("%s", e)
	}
	if e := required("path", args.Path); e != "" {
		return failure("%s", e)
	}
	if ctx.Err() != nil {
		return orchestrator.CancelledResult("")
	}
	path := *args.Path
	f, info, err := openRegular(nil, t.dir, path, os.O_RDONLY) // reads are not sandboxed
	if err != nil {
		return fileErr("read", path, err)
	}
	data, err := readAll(ctx, f, readCap+1)
	if ctx.Err() != nil {
		return orchestrator.CancelledResult("")
	}
	if err != nil {
		return fileErr("read", path, err)
	}
	truncated := len(data) > readCap
	total := max(info.Size(), int64(len(data)))
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
	if info.Size() >= int64(len(data)) {
		fmt.Fprintf(&sb, "[… truncated: %d bytes in all]", info.Size())
	} else { // a file that does not know its size (in /proc)
		fmt.Fprintf(&sb, "[… truncated: more than %d bytes]", readCap)
	}
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
	full := resolve(t.dir, path)
	if info, err := os.Stat(full); err == nil && !info.Mode().IsRegular() {
		return fileErr("write", path, notRegular(info))
	}
	if err := mkdirParents(t.box, t.dir, path); err != nil {
		return fileErr("write", path, err)
	}
	if err := writeRegular(t.box, t.dir, path, []byte(*args.Content)); err != nil {
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

func (t *editTool) Run(ctx context.Context, input json.RawMessage) orchestrator.Result {
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
	if ctx.Err() != nil {
		return orchestrator.CancelledResult("")
	}
	path := *args.Path
	f, info, err := openRegular(t.box, t.dir, path, os.O_RDONLY)
	if err != nil {
		return fileErr("edit", path, err)
	}
	if info.Size() > editCap {
		f.Close()
		return tooLarge(path, info.Size())
	}
	data, err := readAll(ctx, f, editCap+1)
	if ctx.Err() != nil {
		return orchestrator.CancelledResult("")
	}
	if err != nil {
		return fileErr("edit", path, err)
	}
	if len(data) > editCap { // it grew
		return tooLarge(path, int64(len(data)))
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
	if err := writeRegular(t.box, t.dir, path, []byte(text)); err != nil {
		return fileErr("edit", path, err)
	}
	return output("edited " + path)
}

func tooLarge(path string, size int64) orchestrator.Result {
	return failure("edit: %s: too large to edit (%d bytes; edit_file reads files of up to %d bytes): change it with bash (sed, a script) instead", path, size, editCap)
}

// openRegular opens path (as the model gave it, relative to dir; through
// box when there is one) and returns it only if it is a regular file;
// anything else (a directory, a device such as /dev/zero, a named pipe) is
// an error saying what it is. It never blocks: a named pipe is opened
// without waiting for a writer.
func openRegular(box *sandbox.Files, dir, path string, flag int) (*os.File, fs.FileInfo, error) {
	f, err := openFile(box, dir, path, flag|oNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(info)
	}
	return f, info, nil
}

// writeRegular writes data to path (as openRegular takes it), created if
// missing (mode 0644) and keeping the mode of an existing file, refusing
// anything but a regular file without blocking on it (a named pipe with no
// reader, a device).
func writeRegular(box *sandbox.Files, dir, path string, data []byte) error {
	f, err := openFile(box, dir, path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|oNonblock, 0o644)
	if err != nil {
		return err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = notRegular(info)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// notRegular says what a path that is not a regular file is.
func notRegular(info fs.FileInfo) error {
	m := info.Mode()
	switch {
	case m.IsDir():
		return errors.New("is a directory")
	case m&fs.ModeNamedPipe != 0:
		return errors.New("is a named pipe, not a regular file")
	case m&fs.ModeSocket != 0:
		return errors.New("is a socket, not a regular file")
	case m&fs.ModeDevice != 0:
		return errors.New("is a device, not a regular file")
	}
	return errors.New("is not a regular file")
}

// readAll reads f up to limit bytes and closes it, giving up when ctx
// ends. The read itself cannot be interrupted (a file on a hung network
// mount): it goes on in a goroutine that owns f and closes it when the
// read returns; its result is dropped.
func readAll(ctx context.Context, f *os.File, limit int64) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, limit))
		done <- result{data, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
