// Package output writes a run's files atomically into an output directory.
//
// Every file is written under a temporary name in the target directory
// (".series.csv.tmp-123456") and renamed into place only by Commit, so a
// reader never sees a half-written file and an interrupted or failed run
// leaves nothing behind: Abort removes every temporary file, and the
// directory too if Open created it and it is empty. Files an earlier run
// wrote that this one does not (decisions.csv after a run without
// --decisions) are removed by Commit too, once the new files are in place,
// if the command named them with Owns; no other file is touched.
//
//	dir, err := output.Open(outPath) // fails early if outPath is unwritable
//	if err != nil { return err }
//	defer dir.Abort()                // no-op after a successful Commit
//	f, err := dir.Create("series.csv")
//	... write f ...
//	return dir.Commit()
package output

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Dir is an output directory receiving a set of files that appear together
// on Commit. Its methods are safe for concurrent use.
type Dir struct {
	path    string
	created []string // directories Open created, deepest last

	mu     sync.Mutex
	files  []*File
	owned  []string // base names Commit removes when not written
	closed bool
}

// File is one output file being written under a temporary name.
type File struct {
	*os.File
	name string // final base name
	tmp  string // temporary path
}

// FinalName returns the base name the file will have after Commit.
func (f *File) FinalName() string { return f.name }

// Open prepares path as an output directory, creating it (and missing
// parents) if needed, and checks that files can be created in it, so that an
// unwritable --out fails before a run starts. The error is one line naming
// the path and the fix.
func Open(path string) (*Dir, error) {
	if path == "" {
		return nil, errors.New("--out is empty: give a directory for the output files, for example --out out/run1")
	}
	return open(path, path, "choose a writable directory with --out")
}

// OpenParent is Open for the directory of file, a single output file
// (report's --out page.html): its errors name file as the --out given.
func OpenParent(file string) (*Dir, error) {
	return open(filepath.Dir(file), file, "choose an --out in a writable directory")
}

// open opens path; flag is the --out the user gave (path itself, or a file
// in it), fix the message's advice.
func open(path, flag, fix string) (*Dir, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("cannot use --out %s: %v", flag, err)
	}
	it := "it"
	if flag != path {
		it = path
	}
	d := &Dir{path: path}
	// Remember which directories we are about to create, top first.
	var missing []string
	for p := abs; ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append([]string{p}, missing...)
		if filepath.Dir(p) == p {
			break
		}
	}
	if st, err := os.Stat(abs); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("cannot write to --out %s: %s is a file, not a directory; choose another --out or remove the file", flag, it)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		parent := abs
		if len(missing) > 0 {
			parent = filepath.Dir(missing[0])
		}
		d.created = existing(missing)
		d.removeCreated()
		return nil, fmt.Errorf("cannot create --out %s: %s; %s", flag, reason(err, parent), fix)
	}
	d.created = missing
	probe, err := os.CreateTemp(abs, ".probe.tmp-*")
	if err != nil {
		d.removeCreated()
		if !errors.Is(err, fs.ErrNotExist) {
			fix += " or fix its permissions"
		}
		return nil, fmt.Errorf("cannot write to --out %s: %s; %s", flag, reason(err, abs), fix)
	}
	probe.Close()
	os.Remove(probe.Name())
	return d, nil
}

func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// reason explains err, a failure to create an entry in the directory
// parent: "no such file or directory" from a directory that exists means
// a file system that takes no new entries (/proc, /sys), which is what the
// message then says.
func reason(err error, parent string) string {
	err = unwrapPath(err)
	if errors.Is(err, fs.ErrNotExist) {
		if st, e := os.Stat(parent); e == nil && st.IsDir() {
			return fmt.Sprintf("%s takes no new files or directories (creating one says %q, as on a virtual file system like /proc or /sys)", filepath.ToSlash(parent), err.Error())
		}
	}
	return err.Error()
}

// unwrapPath drops the path from a *PathError, which the message already
// names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Path returns the directory as given to Open.
func (d *Dir) Path() string { return d.path }

// Owns names the files the command may write in the directory (every one
// it writes in some run: decisions.csv, chart.png, ...). Commit removes
// those of them this run did not create, so the directory never mixes the
// files of two runs; files not named here are never touched.
func (d *Dir) Owns(names ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.owned = append(d.owned, names...)
}

// Create starts a file that will be called name (a base name, no
// separators) in the directory once committed.
func (d *Dir) Create(name string) (*File, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return nil, fmt.Errorf("output: invalid file name %q", name)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("output: %s is already committed or aborted", d.path)
	}
	for _, f := range d.files {
		if f.name == name {
			return nil, fmt.Errorf("output: %s is created twice", name)
		}
	}
	f, err := os.CreateTemp(d.path, "."+name+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s in --out %s: %v", name, d.path, unwrapPath(err))
	}
	of := &File{File: f, name: name, tmp: f.Name()}
	d.files = append(d.files, of)
	return of, nil
}

// WriteFile creates name and fills it through a buffered writer with
// write; the file still appears only on Commit.
func (d *Dir) WriteFile(name string, write func(io.Writer) error) error {
	f, err := d.Create(name)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %v", filepath.Join(d.path, name), unwrapPath(err))
	}
	return nil
}

// Commit closes every file and renames each into place. If anything fails,
// the files not yet renamed are removed and the error returned.
func (d *Dir) Commit() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return fmt.Errorf("output: %s is already committed or aborted", d.path)
	}
	d.closed = true
	var err error
	for _, f := range d.files {
		if e := f.Sync(); e != nil && err == nil {
			err = fmt.Errorf("writing %s: %v", filepath.Join(d.path, f.name), e)
		}
		if e := f.File.Close(); e != nil && !errors.Is(e, os.ErrClosed) && err == nil {
			err = fmt.Errorf("writing %s: %v", filepath.Join(d.path, f.name), e)
		}
	}
	if err != nil {
		d.cleanup()
		return err
	}
	for i, f := range d.files {
		if e := os.Chmod(f.tmp, 0o644); e != nil {
			err = e
		} else if e := os.Rename(f.tmp, filepath.Join(d.path, f.name)); e != nil {
			err = e
		}
		if err != nil {
			d.files = d.files[i:]
			d.cleanup()
			return fmt.Errorf("cannot put %s in place: %v", filepath.Join(d.path, f.name), unwrapPath(err))
		}
	}
	written := map[string]bool{}
	for _, f := range d.files {
		written[f.name] = true
	}
	d.files = nil
	// The earlier run's files that this run does not replace go, now that
	// the new ones are in place.
	for _, name := range d.owned {
		if written[name] || name == "" || strings.ContainsAny(name, `/\`) {
			continue
		}
		p := filepath.Join(d.path, name)
		if st, e := os.Lstat(p); e != nil || !st.Mode().IsRegular() {
			continue // absent, or not a file the lab wrote
		}
		if e := os.Remove(p); e != nil && !errors.Is(e, fs.ErrNotExist) {
			return fmt.Errorf("cannot remove the earlier run's %s: %v; remove it by hand", p, unwrapPath(e))
		}
	}
	return nil
}

// Abort removes every temporary file, and the directories Open created if
// they are empty. It is safe to call after Commit (then it does nothing)
// and more than once.
func (d *Dir) Abort() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed && d.files == nil {
		return nil
	}
	d.closed = true
	for _, f := range d.files {
		f.File.Close()
	}
	d.cleanup()
	return nil
}

// cleanup removes the temporary files and the created directories if
// empty. d.mu is held.
func (d *Dir) cleanup() {
	for _, f := range d.files {
		os.Remove(f.tmp)
	}
	d.files = nil
	d.removeCreated()
}

func (d *Dir) removeCreated() {
	for i := len(d.created) - 1; i >= 0; i-- {
		if os.Remove(d.created[i]) != nil {
			break // not empty (or gone): leave it and its parents
		}
	}
	d.created = nil
}
