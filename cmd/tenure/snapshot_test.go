package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/snapshot"
)

// snapshotDelta submits one delta with the CLI as agent.
func snapshotDelta(t *testing.T, db, agent string, round, weight, op, path, value, provenance string) result {
	t.Helper()
	args := []string{"snapshot", "delta", "--db", db, "--workflow", "orders", "--agent", agent, "--round", round, "--weight", weight,
		"--op", op, "--path", path, "--provenance", provenance}
	if value != "" {
		args = append(args, "--value", value)
	}
	return tenureCLI(t, "", args...)
}

func TestSnapshotCLI(t *testing.T) {
	db := newDB(t)
	r := mustCLI(t, "", "snapshot", "start", "--db", db, "--workflow", "orders", "--query", "Which customers placed orders over $500?",
		"--strategy", "weighted-merge", "--max-bytes", "64KiB", "--path-strategy", "$.entities=union", "--expert", "$.rules=rule-checker")
	if !strings.Contains(r.stdout, "started workflow orders: round 0, round 1 open; weighted-merge, at most 65536 bytes (clip)") {
		t.Fatalf("start: %s", r.stdout)
	}
	r = snapshotDelta(t, db, "semantic-mapper", "1", "0.35", "add", "$.bindings.customer", `"sea:customer:001"`, "Matched 'customer' to concept via KGS lookup")
	if r.code != 0 || !strings.Contains(r.stdout, "accepted d_") || !strings.Contains(r.stdout, "by semantic-mapper (weight 0.35) at $['bindings']['customer']") {
		t.Fatalf("delta: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r = snapshotDelta(t, db, "summarizer", "1", "0.2", "add", "$.bindings.customer", `"sea:client:042"`, "a guess"); r.code != 0 {
		t.Fatalf("delta: %s", r.stderr)
	}
	r = mustCLI(t, "", "snapshot", "close", "--db", db, "--workflow", "orders")
	for _, want := range []string{
		"closed round 1 of orders: 2 deltas (1 applied, 0 partial, 1 lost, 0 clipped, 0 rejected)",
		`added  $['bindings']['customer']  "sea:customer:001"`,
		"conflict at $['bindings']['customer'] (weighted-merge): semantic-mapper (0.35) won",
		"summarizer (0.2) lost: outweighed — semantic-mapper holds it with weight 0.35",
		"converged: false",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("close output lacks %q:\n%s", want, r.stdout)
		}
	}
	if r = mustCLI(t, "", "snapshot", "get", "--db", db, "--workflow", "orders", "--binding", "customer"); r.stdout != "sea:customer:001\n" {
		t.Errorf("get --binding: %q", r.stdout)
	}
	snap := mustJSON[snapshot.Snapshot](t, "", "snapshot", "get", "--db", db, "--workflow", "orders", "--round", "0")
	if snap.Round != 0 || len(snap.Bindings()) != 0 || snap.Query() != "Which customers placed orders over $500?" {
		t.Errorf("get --round 0: %+v", snap)
	}
	r = mustCLI(t, "", "snapshot", "history", "--db", db, "--workflow", "orders", "--path", "$.bindings.customer")
	want := "Round 1: semantic-mapper → \"sea:customer:001\" (add $.bindings.customer, weight 0.35, applied) — Matched 'customer' to concept via KGS lookup\n" +
		"Round 1: summarizer → \"sea:client:042\" (add $.bindings.customer, weight 0.2, lost: outweighed) — a guess\n"
	if r.stdout != want {
		t.Errorf("history:\n%s\nwant\n%s", r.stdout, want)
	}
	if r = mustCLI(t, "", "snapshot", "close", "--db", db, "--workflow", "orders"); !strings.Contains(r.stdout, "converged: true") {
		t.Errorf("a round with no deltas: %s", r.stdout)
	}
	// The workflow reaches compile.
	r = mustCLI(t, "", "compile", "--db", db, "--query", "who is the customer?", "--workflow", "orders", "--budget", "600")
	if !strings.Contains(r.stdout, "customer → sea:customer:001") {
		t.Errorf("compile --workflow: %s", r.stdout)
	}
}

func TestSnapshotCLIErrors(t *testing.T) {
	db := newDB(t)
	mustCLI(t, "", "snapshot", "start", "--db", db, "--workflow", "orders", "--query", "q")
	mustCLI(t, "", "snapshot", "delta", "--db", db, "--workflow", "orders", "--agent", "a", "--round", "1", "--weight", "0.5", "--op", "add",
		"--path", "$.bindings.customer", "--value", `"sea:1"`, "--provenance", "p")
	mustCLI(t, "", "snapshot", "close", "--db", db, "--workflow", "orders")
	tests := []struct {
		name  string
		args  []string
		code  tenure.Code
		field string
		says  string
	}{
		{"InvalidJSONPath", []string{"--path", "$.bindings[", "--value", `"x"`}, tenure.CodeInvalid, "--path", "not a JSONPath"},
		{"PathIntoScalar", []string{"--path", "$.query.words", "--value", "1"}, tenure.CodeInvalid, "--path", "path into a scalar"},
		{"WrongOperation", []string{"--op", "upsert"}, tenure.CodeInvalid, "--op", "allowed: add, modify, remove, rebind"},
		{"UnknownWorkflow", []string{"--workflow", "nothing"}, tenure.CodeNotFound, "--workflow", `no workflow "nothing"`},
		{"WeightAbove", []string{"--weight", "1.5"}, tenure.CodeInvalid, "--weight", "[0, 1]"},
		{"WeightNotANumber", []string{"--weight", "heavy"}, tenure.CodeInvalid, "--weight", "a number"},
		{"ValueNotJSON", []string{"--value", "sea:2"}, tenure.CodeInvalid, "--value", "quote a string"},
		{"IdentityStable", []string{"--value", `"sea:2"`, "--path", "$.bindings.customer"}, tenure.CodeConflict, "--path", "rebind"},
		{"NoProvenance", []string{"--provenance", " "}, tenure.CodeInvalid, "--provenance", "required"},
		{"FutureRound", []string{"--round", "3"}, tenure.CodeConflict, "--round", "not open yet"},
		{"FlagOfAnotherAction", []string{"--query", "q"}, tenure.CodeInvalid, "--query", "does not apply to snapshot delta"},
		{"AgentAndUser", []string{"--user", "b"}, tenure.CodeInvalid, "--agent", "not both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]string{"--db": db, "--workflow": "orders", "--agent": "b", "--round": "2", "--weight": "0.5", "--op": "add",
				"--path": "$.bindings.order", "--value": `"sea:order:1"`, "--provenance": "p"}
			var extra []string
			for i := 0; i < len(tc.args); i += 2 {
				if _, ok := args[tc.args[i]]; ok {
					args[tc.args[i]] = tc.args[i+1]
				} else {
					extra = append(extra, tc.args[i], tc.args[i+1])
				}
			}
			cmd := []string{"snapshot", "delta", "--json"}
			for k, v := range args {
				cmd = append(cmd, k, v)
			}
			r := tenureCLI(t, "", append(cmd, extra...)...)
			var body struct {
				Code    tenure.Code `json:"code"`
				Message string      `json:"message"`
				Field   string      `json:"field"`
			}
			if err := json.Unmarshal([]byte(r.stderr), &body); err != nil {
				t.Fatalf("stderr %q: %v", r.stderr, err)
			}
			if r.code != tenure.ExitCode(tc.code) || body.Code != tc.code || body.Field != tc.field || !strings.Contains(body.Message, tc.says) {
				t.Fatalf("exit %d, %+v; want %s on %s saying %q", r.code, body, tc.code, tc.field, tc.says)
			}
		})
	}
	// Nothing was written: round 2 has no deltas.
	snap := mustJSON[snapshot.Snapshot](t, "", "snapshot", "close", "--db", db, "--workflow", "orders")
	if snap.Report.Deltas != 0 {
		t.Fatalf("round 2 holds %d deltas after only refused ones", snap.Report.Deltas)
	}
	// Over --server the key is the agent.
	r := tenureCLI(t, "", "snapshot", "delta", "--server", "http://127.0.0.1:1", "--key", "tk_x", "--workflow", "orders", "--agent", "a")
	if r.code != tenure.ExitCode(tenure.CodeInvalid) || !strings.Contains(r.stderr, "--agent: applies to a local --db only") {
		t.Fatalf("--agent with --server: %d %s", r.code, r.stderr)
	}
}
