package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tenure-dev/tenure/internal/pgtest"
)

// cliEnv makes the test binary act as the tenure CLI: the README test puts
// it on PATH under that name, so that the README's commands run the code
// under test exactly as a built binary would.
const cliEnv = "TENURE_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(cliEnv) == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(pgtest.Main(m)) // drops the PostgreSQL schemas the tests used

}

// readmeCommand is one "$ command" of a console block and the output the
// README shows for it.
type readmeCommand struct {
	line int
	cmd  string
	want []string
}

// readmeCommands returns the commands of the README's console blocks, in
// order.
func readmeCommands(t *testing.T, path string) []readmeCommand {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readmeCommand
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case l == "```console":
			in = true
		case in && l == "```":
			in = false
		case in && strings.HasPrefix(l, "$ "):
			out = append(out, readmeCommand{line: n, cmd: strings.TrimPrefix(l, "$ ")})
		case in && len(out) > 0:
			out[len(out)-1].want = append(out[len(out)-1].want, l)
		}
	}
	return out
}

// TestREADME runs the README's console blocks top to bottom in a fresh
// directory holding examples/, with the CLI on PATH, and compares what
// each command prints (stdout and stderr) with what the README shows. A
// "…" in a shown line stands for any text; a line that is only "…" for any
// number of lines. The server's port is replaced by a free one.
func TestREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's commands, a server among them")
	}
	cmds := readmeCommands(t, filepath.Join("..", "..", "README.md"))
	if len(cmds) < 10 {
		t.Fatalf("found %d console commands in README.md; the quickstarts are missing", len(cmds))
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "tenure")); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS(filepath.Join("..", "..", "examples"))); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	var script strings.Builder
	script.WriteString("set -u\n")
	for i, c := range cmds {
		cmd := strings.ReplaceAll(c.cmd, "8080", strconv.Itoa(port))
		fmt.Fprintf(&script, "echo '@@%d'\n%s 2>&1\n", i, cmd)
	}
	fmt.Fprintf(&script, "echo '@@end'\n")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "-c", script.String())
	sh.Dir = dir
	sh.Env = append(os.Environ(), cliEnv+"=1", "PATH="+bin+":"+os.Getenv("PATH"), "TENURE_DB=", "TENURE_SERVER=", "TENURE_KEY=")
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sh.Cancel = func() error { return syscall.Kill(-sh.Process.Pid, syscall.SIGKILL) }
	t.Cleanup(func() {
		if sh.Process != nil {
			syscall.Kill(-sh.Process.Pid, syscall.SIGKILL) // a server left running
		}
	})
	raw, err := sh.Output()
	if err != nil {
		t.Fatalf("the README's commands failed: %v\n%s", err, raw)
	}
	got := map[int][]string{}
	cur := -1
	for _, l := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		if l == "@@end" {
			cur = -2
			continue
		}
		if m := marker.FindStringSubmatch(l); m != nil {
			cur, _ = strconv.Atoi(m[1])
			continue
		}
		if cur >= 0 {
			got[cur] = append(got[cur], l)
		}
	}
	if _, ok := got[-1]; ok || !strings.Contains(string(raw), "@@end") {
		t.Fatalf("the README's commands did not run to the end:\n%s", raw)
	}
	for i, c := range cmds {
		if !matchLines(c.want, got[i]) {
			t.Errorf("README.md:%d: $ %s\nshows:\n%s\nprints:\n%s", c.line, c.cmd, strings.Join(c.want, "\n"), strings.Join(got[i], "\n"))
		}
	}
}

var marker = regexp.MustCompile(`^@@(\d+)$`)

// matchLines matches printed lines against shown ones: "…" in a line
// stands for any text, a line that is only "…" for any number of lines.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "…" {
		for k := 0; k <= len(got); k++ {
			if matchLines(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && matchLine(want[0], got[0]) && matchLines(want[1:], got[1:])
}

func matchLine(want, got string) bool {
	parts := strings.Split(want, "…")
	re := "^"
	for i, p := range parts {
		if i > 0 {
			re += ".*"
		}
		re += regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(re + "$").MatchString(got)
}

func TestMatchLines(t *testing.T) {
	for _, c := range []struct {
		want, got []string
		ok        bool
	}{
		{[]string{"a […]"}, []string{"a [x, y]"}, true},
		{[]string{"a […]"}, []string{"b [x]"}, false},
		{[]string{"x", "…", "z"}, []string{"x", "1", "2", "z"}, true},
		{[]string{"x", "…"}, []string{"x"}, true},
		{[]string{"x"}, []string{"x", "y"}, false},
		{nil, []string{"y"}, false},
	} {
		if got := matchLines(c.want, c.got); got != c.ok {
			t.Errorf("matchLines(%q, %q) = %v, want %v", c.want, c.got, got, c.ok)
		}
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
