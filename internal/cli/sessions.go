package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/mm-agent/mm/internal/sessions"
	"github.com/mm-agent/mm/internal/termtext"
)

// sessionFlags counts the flags that choose the session: --session,
// --continue, --resume, --no-session.
func (o *rootOptions) sessionFlags() int {
	n := 0
	for _, on := range []bool{o.session != "", o.cont, o.resumeSet, o.noSession} {
		if on {
			n++
		}
	}
	return n
}

// keptSession is a session of the sessions directory this run writes.
type keptSession struct {
	dir, id, path string
	// fresh: this run began it (and removes it when it ends with nothing
	// written: a line mode left at once lists nothing).
	fresh bool
}

// keptSession is the session line mode, -p and the window keep: the one
// --continue or --resume names, else a new one in the sessions directory;
// nil with --session FILE (the file), --no-session, or a sessions
// directory that cannot be made (a notice says so; the run goes on).
func (o *rootOptions) keptSession() (*keptSession, error) {
	if o.session != "" || o.noSession {
		return nil, nil
	}
	resuming := o.cont || o.resumeSet
	dir, err := sessions.Dir()
	if err != nil {
		if resuming {
			return nil, &exitError{exitFailure, "mm: " + err.Error()}
		}
		fmt.Fprintln(o.io.Err, "mm: this session is not kept: "+err.Error())
		return nil, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	switch {
	case o.cont:
		kept, err := sessions.In(dir, cwd)
		if err != nil {
			return nil, &exitError{exitFailure, "mm: " + err.Error()}
		}
		if len(kept) == 0 {
			return nil, &exitError{exitFailure, fmt.Sprintf("mm: no session to continue: none is kept for %s (mm without --continue starts one)", cwd)}
		}
		return &keptSession{dir: dir, id: kept[0].ID, path: kept[0].Path}, nil
	case o.resumeSet:
		if !sessions.ValidID(o.resume) {
			return nil, &exitError{exitFailure, fmt.Sprintf("mm: --resume %q: not a session id (mm --resume lists this directory's sessions)", o.resume)}
		}
		path := sessions.Path(dir, o.resume)
		if _, err := os.Stat(path); err != nil {
			return nil, &exitError{exitFailure, fmt.Sprintf("mm: --resume: no session %s in %s (mm --resume lists this directory's sessions)", o.resume, dir)}
		}
		return &keptSession{dir: dir, id: o.resume, path: path}, nil
	}
	id := sessions.NewID()
	if err := sessions.Begin(dir, id, cwd); err != nil {
		fmt.Fprintln(o.io.Err, "mm: this session is not kept: "+err.Error())
		return nil, nil
	}
	return &keptSession{dir: dir, id: id, path: sessions.Path(dir, id), fresh: true}, nil
}

// discardIfEmpty removes a session this run began and wrote nothing to.
func (k *keptSession) discardIfEmpty() {
	if k == nil || !k.fresh {
		return
	}
	// Empty, or never made (a start that failed before it): nothing kept.
	if st, err := os.Stat(k.path); errors.Is(err, fs.ErrNotExist) || err == nil && st.Size() == 0 {
		sessions.Discard(k.dir, k.id)
	}
}

// listSessions is mm --resume alone: the sessions kept for this
// directory, newest first, one a line: id, time, first question.
func (o *rootOptions) listSessions() error {
	dir, err := sessions.Dir()
	if err != nil {
		return &exitError{exitFailure, "mm: " + err.Error()}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	kept, err := sessions.In(dir, cwd)
	if err != nil {
		return &exitError{exitFailure, "mm: " + err.Error()}
	}
	if len(kept) == 0 {
		fmt.Fprintf(o.io.Err, "mm: no session is kept for %s\n", cwd)
		return nil
	}
	for _, s := range kept {
		fmt.Fprintf(o.io.Out, "%s  %s  %s\n", s.ID, s.Time.Local().Format("2006-01-02 15:04"), termtext.Clean(s.First)) // a file on disk: nothing in it draws on the terminal
	}
	fmt.Fprintln(o.io.Err, "mm: mm --resume <id> resumes one; mm --continue the first")
	return nil
}
