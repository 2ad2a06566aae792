package output

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestCommitPutsEveryFileInPlace(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "a", "b")
	d, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Abort()
	f, err := d.Create("series.csv")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "x,y\n")
	if err := d.WriteFile("summary.json", func(w io.Writer) error {
		_, err := io.WriteString(w, "{}\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// Before Commit only temporary names exist.
	for _, n := range names(t, out) {
		if !strings.HasPrefix(n, ".") || !strings.Contains(n, ".tmp-") {
			t.Errorf("before Commit: %s is visible", n)
		}
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, out); !slices.Equal(got, []string{"series.csv", "summary.json"}) {
		t.Fatalf("after Commit: %v", got)
	}
	b, _ := os.ReadFile(filepath.Join(out, "series.csv"))
	if string(b) != "x,y\n" {
		t.Errorf("series.csv = %q", b)
	}
	st, _ := os.Stat(filepath.Join(out, "summary.json"))
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
	if err := d.Abort(); err != nil {
		t.Fatal(err)
	}
	if len(names(t, out)) != 2 {
		t.Error("Abort after Commit removed files")
	}
	if _, err := d.Create("late.csv"); err == nil {
		t.Error("Create after Commit succeeded")
	}
}

func TestCommitReplacesAnOldFile(t *testing.T) {
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "series.csv"), []byte("old"), 0o644)
	d, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := d.Create("series.csv")
	f.WriteString("new")
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "series.csv")); string(b) != "new" {
		t.Fatalf("got %q", b)
	}
}

func TestAbortLeavesNothingBehind(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "new", "run")
	d, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := d.Create("series.csv")
	f.WriteString("partial")
	d.Create("summary.json")
	if err := d.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, root); len(got) != 0 {
		t.Fatalf("left behind in %s: %v", root, got)
	}
	// A directory that existed is kept, and so are files not ours.
	keep := t.TempDir()
	os.WriteFile(filepath.Join(keep, "notes.txt"), []byte("mine"), 0o644)
	d, err = Open(keep)
	if err != nil {
		t.Fatal(err)
	}
	d.Create("series.csv")
	d.Abort()
	if got := names(t, keep); !slices.Equal(got, []string{"notes.txt"}) {
		t.Fatalf("left %v", got)
	}
}

func TestUnwritableOutFailsEarlyWithOneLine(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "plain")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, path := range []string{file, filepath.Join(file, "sub")} {
		_, err := Open(path)
		if err == nil {
			t.Fatalf("Open(%s) succeeded", path)
		}
		msg := err.Error()
		if !strings.Contains(msg, path) || !strings.Contains(msg, "--out") || strings.Contains(msg, "\n") {
			t.Errorf("error %q should be one line naming %s and --out", msg, path)
		}
	}
	if got := names(t, root); !slices.Equal(got, []string{"plain"}) {
		t.Errorf("left %v", got)
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(root, "ro")
		os.Mkdir(ro, 0o555)
		_, err := Open(filepath.Join(ro, "out"))
		if err == nil || !strings.Contains(err.Error(), "choose a writable directory") {
			t.Errorf("read-only parent: %v", err)
		}
	}
	if _, err := Open(""); err == nil {
		t.Error("empty path accepted")
	}
}

func TestCreateRejectsBadAndDuplicateNames(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Abort()
	for _, n := range []string{"", "a/b", "..", "."} {
		if _, err := d.Create(n); err == nil {
			t.Errorf("Create(%q) succeeded", n)
		}
	}
	if _, err := d.Create("x.csv"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Create("x.csv"); err == nil {
		t.Error("duplicate accepted")
	}
}

func TestCommitFailureCleansUp(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	d, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := d.Create("a.csv")
	f.WriteString("a")
	// A directory in the way makes the rename fail.
	os.Mkdir(filepath.Join(out, "a.csv"), 0o755)
	os.WriteFile(filepath.Join(out, "a.csv", "blocker"), nil, 0o644)
	if err := d.Commit(); err == nil {
		t.Fatal("Commit succeeded over a directory")
	}
	for _, n := range names(t, out) {
		if strings.Contains(n, ".tmp-") {
			t.Errorf("temporary file %s left", n)
		}
	}
}

// Owns: Commit removes the owned files this run did not write, keeps the
// ones it wrote and every file not owned; Abort removes none of them.
func TestCommitRemovesOwnedFilesNotWritten(t *testing.T) {
	for _, tc := range []struct {
		name   string
		commit bool
		want   []string
	}{
		{"commit", true, []string{"notes.txt", "series.csv", "sub"}},
		{"abort", false, []string{"decisions.csv", "notes.txt", "series.csv", "sub"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			for _, n := range []string{"series.csv", "decisions.csv", "notes.txt"} {
				os.WriteFile(filepath.Join(out, n), []byte("old"), 0o644)
			}
			// An owned name that is a directory is not the lab's file.
			os.Mkdir(filepath.Join(out, "sub"), 0o755)
			d, err := Open(out)
			if err != nil {
				t.Fatal(err)
			}
			d.Owns("series.csv", "decisions.csv", "chart.png", "sub")
			f, _ := d.Create("series.csv")
			f.WriteString("new")
			if tc.commit {
				if err := d.Commit(); err != nil {
					t.Fatal(err)
				}
			} else {
				d.Abort()
			}
			if got := names(t, out); !slices.Equal(got, tc.want) {
				t.Errorf("left %v, want %v", got, tc.want)
			}
		})
	}
}

// OpenParent names the file given as --out, and a directory that exists
// but takes no new entries (/proc) is said to be one, not "no such file
// or directory" as if it were missing.
func TestOpenParentAndVirtualDirs(t *testing.T) {
	root := t.TempDir()
	plain := filepath.Join(root, "plain")
	os.WriteFile(plain, []byte("x"), 0o644)
	page := filepath.Join(plain, "page.html")
	_, err := OpenParent(page)
	if err == nil || !strings.Contains(err.Error(), "--out "+page+": "+plain+" is a file, not a directory") {
		t.Errorf("OpenParent(%s): %v", page, err)
	}
	d, err := OpenParent(filepath.Join(root, "new", "page.html"))
	if err != nil {
		t.Fatal(err)
	}
	d.Abort()
	if st, err := os.Stat("/proc"); err != nil || !st.IsDir() {
		t.Skip("no /proc")
	}
	if f, err := os.Create("/proc/ratelimit-lab-probe"); err == nil {
		f.Close()
		os.Remove(f.Name())
		t.Skip("/proc takes new files here")
	}
	for _, tc := range []struct {
		open func(string) (*Dir, error)
		path string
	}{{OpenParent, "/proc/x.html"}, {OpenParent, "/proc/sub/x.html"}, {Open, "/proc/x"}} {
		_, err := tc.open(tc.path)
		if err == nil || !strings.Contains(err.Error(), "--out "+tc.path+": /proc takes no new files or directories") ||
			strings.Contains(err.Error(), "permissions") {
			t.Errorf("%s: %v", tc.path, err)
		}
	}
}
