package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
)

// result is what one CLI run produced.
type result struct {
	code           int
	stdout, stderr string
}

// tenureCLI runs the CLI in-process with stdin and args.
func tenureCLI(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return result{code, out.String(), errb.String()}
}

// mustCLI runs the CLI and fails the test unless it exits 0.
func mustCLI(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	r := tenureCLI(t, stdin, args...)
	if r.code != 0 {
		t.Fatalf("tenure %s: exit %d, stderr: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

// mustJSON runs the CLI with --json and decodes its output into a T,
// rejecting fields T does not have.
func mustJSON[T any](t *testing.T, stdin string, args ...string) T {
	t.Helper()
	r := mustCLI(t, stdin, append(args, "--json")...)
	var v T
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("tenure %s: decode output: %v\n%s", strings.Join(args, " "), err, r.stdout)
	}
	return v
}

// newDB returns the path of a database file in a fresh temp dir.
func newDB(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "tenure.db")
}

// put writes one object and returns the write result.
func put(t *testing.T, db, obj string, flags ...string) tenure.WriteResult {
	t.Helper()
	return mustJSON[tenure.WriteResult](t, obj, append([]string{"put", "--db", db}, flags...)...)
}

// getValue returns the current value of key as JSON text.
func getValue(t *testing.T, db, key string, flags ...string) string {
	t.Helper()
	o := mustJSON[tenure.Object](t, "", append([]string{"get", key, "--db", db}, flags...)...)
	return string(o.Value)
}

// listed returns "key=value" for each object list prints, sorted.
func listed(t *testing.T, db string, flags ...string) []string {
	t.Helper()
	objs := mustJSON[[]tenure.Object](t, "", append([]string{"list", "--db", db}, flags...)...)
	out := []string{}
	for _, o := range objs {
		out = append(out, o.Key+"="+string(o.Value))
	}
	slices.Sort(out)
	return out
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		r := tenureCLI(t, "", args...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("tenure %v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		want := []string{"help [COMMAND]", "TENURE_DB", `user_id "local"`, `"highly_restricted"`, `roles ["admin"]`,
			`authority "policy"`, "--principal FILE", "3 not_found"}
		for _, c := range commands {
			want = append(want, "\n  "+c.name)
		}
		for _, w := range want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("tenure %v: usage lacks %q", args, w)
			}
		}
	}
	t.Run("Command", func(t *testing.T) {
		help := mustCLI(t, "", "help", "get").stdout
		for _, w := range []string{"Usage: tenure get [flags] KEY", "--as-of-tx TIME", "--as-of-valid TIME", "--id "} {
			if !strings.Contains(help, w) {
				t.Errorf("help get lacks %q:\n%s", w, help)
			}
		}
		if got := mustCLI(t, "", "get", "-h").stdout; got != help {
			t.Errorf("get -h differs from help get:\n%s", got)
		}
	})
	t.Run("ErrNoCommand", func(t *testing.T) {
		r := tenureCLI(t, "")
		if r.code != 2 || !strings.Contains(r.stderr, "Commands:") {
			t.Errorf("no arguments: exit %d, stderr %q; want 2 and the usage", r.code, r.stderr)
		}
	})
	t.Run("ErrUnknownTopic", func(t *testing.T) {
		if r := tenureCLI(t, "", "help", "frobnicate"); r.code != 2 || !strings.Contains(r.stderr, "frobnicate") {
			t.Errorf("help frobnicate: exit %d, stderr %q", r.code, r.stderr)
		}
	})
}

func TestTenureDBEnv(t *testing.T) {
	db := newDB(t)
	t.Setenv("TENURE_DB", db)
	mustCLI(t, `{"key":"greeting","value":"hello"}`, "put")
	if got := getValue(t, db, "greeting"); got != `"hello"` {
		t.Errorf("value written with $TENURE_DB read with --db: got %s, want \"hello\"", got)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := mustCLI(t, "", args...)
		if want := "tenure " + tenure.Version() + " ("; !strings.HasPrefix(r.stdout, want) {
			t.Errorf("tenure %v = %q, want prefix %q", args, r.stdout, want)
		}
	}
	var v map[string]string
	if err := json.Unmarshal([]byte(mustCLI(t, "", "version", "--json").stdout), &v); err != nil || v["version"] != tenure.Version() {
		t.Errorf("version --json = %v, %v", v, err)
	}
	if r := tenureCLI(t, "", "version", "extra"); r.code == 0 {
		t.Error("version with an argument succeeded")
	}
}

func TestOverridesDropOwnerPermissions(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	policy := `{"key":"p","content":"no refunds","object_type":"policy_rule"}`
	if r := tenureCLI(t, policy, "put", "--db", db, "--authority", "manager", "--user", "cfo"); r.code != tenure.ExitCode(tenure.CodeForbidden) {
		t.Errorf("manager without --permissions wrote a policy: exit %d %s", r.code, r.stderr)
	}
	mustCLI(t, policy, "put", "--db", db, "--authority", "manager", "--user", "cfo", "--permissions", "rules:write")
	mustCLI(t, `{"key":"q","content":"the owner may","object_type":"policy_rule"}`, "put", "--db", db)
}

func TestHelpLayout(t *testing.T) {
	texts := map[string]string{"": usage()}
	for _, c := range commands {
		texts[c.name] = commandUsage(c)
	}
	for name, text := range texts {
		for _, l := range strings.Split(text, "\n") {
			if len(l) > helpWidth && strings.Contains(strings.TrimSpace(l), " ") && strings.HasPrefix(l, "  ") {
				t.Errorf("help %s: line of %d columns:\n%s", name, len(l), l)
			}
		}
	}
}
