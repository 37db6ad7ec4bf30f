package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
)

// writeFile writes a file in a fresh temp dir and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestInvalidInput checks that every kind of bad input exits 2 with an
// error naming the field, flag or line at fault, and writes nothing.
func TestInvalidInput(t *testing.T) {
	const obj = `{"key":"a","value":1}`
	badPrincipal := writeFile(t, "bad.json", `{"user_id":"ivy","colour":"red"}`)
	typedPrincipal := writeFile(t, "typed.json", `{"user_id":"ivy","roles":"admin"}`)
	brokenPrincipal := writeFile(t, "broken.json", "{\"user_id\":\n\"ivy\"")
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		want  string // in stderr
		// store is true when the store, not the CLI, rejects the input: the
		// database is then opened but must stay empty.
		store bool
	}{
		{"UnknownField", `{"key":"a","value":1,"colour":"red"}`, []string{"put"}, "colour: unknown field", false},
		{"WrongCase", `{"KEY":"a","value":1}`, []string{"put"}, `KEY: unknown field (names are case-sensitive: did you mean "key"?)`, false},
		{"Duplicate", `{"key":"a","value":1,"key":"b"}`, []string{"put"}, "key: given more than once", false},
		{"NestedUnknown", `{"key":"a","value":1,"decay_rule":{"half_life":3}}`, []string{"put"}, "decay_rule.half_life: unknown field", false},
		{"WrongType", `{"key":"a","value":1,"confidence_score":"high"}`, []string{"put"}, "confidence_score: want a number, got a string", false},
		{"WrongNestedType", `{"key":"a","value":1,"decay_rule":{"half_life_days":"x"}}`, []string{"put"}, "decay_rule.half_life_days: want a number", false},
		{"BadTime", `{"key":"a","value":1,"valid_from":"yesterday"}`, []string{"put"}, `valid_from: want an RFC 3339 time`, false},
		{"Malformed", "{\"key\":\"a\",\n\"value\":1,}", []string{"put"}, "line 2, column 11: malformed JSON", false},
		{"Truncated", `{"key":"a",`, []string{"put"}, "line 1, column 12: malformed JSON: unexpected end of input", false},
		{"TrailingData", obj + ` {"key":"b"}`, []string{"put"}, "line 1, column 23: malformed JSON: unexpected data", false},
		{"Empty", " \n", []string{"put"}, "no input", false},
		{"NotAnObject", `"a"`, []string{"put"}, "want a JSON object or an array of objects, got a string", false},
		{"BatchWrongType", `[` + obj + `,{"key":"b","value":1,"aliases":"x"}]`, []string{"put"}, "[1].aliases: want an array, got a string", false},
		{"BatchNotObject", `[` + obj + `,3]`, []string{"put"}, "[1]: want a JSON object, got a number", false},
		{"MissingFile", "", []string{"put", "--file", "/nonexistent/objects.json"}, "--file: cannot read input file", false},
		{"UnknownLayer", `{"key":"a","value":1,"layer":"attic"}`, []string{"put"}, `layer: unknown value "attic"`, true},
		{"BatchUnknownLayer", `[` + obj + `,{"key":"b","value":1,"layer":"attic"}]`, []string{"put"}, `[1].layer: unknown value "attic"`, true},
		{"ScopeIDOnGlobal", obj, []string{"put", "--scope-id", "s1"}, "scope_id: only task, session", true},
		{"PutArgument", obj, []string{"put", "extra"}, "put takes no arguments", false},
		{"UnknownFlag", obj, []string{"put", "--colour", "red"}, "--colour: flag provided but not defined", false},
		{"BadAsOfTx", "", []string{"get", "a", "--as-of-tx", "yesterday"}, `--as-of-tx: "yesterday" is not a time`, false},
		{"BadAsOfValid", "", []string{"get", "a", "--as-of-valid", "2025-13-01"}, `--as-of-valid: "2025-13-01" is not a time`, false},
		{"GetNoKey", "", []string{"get"}, "usage: tenure get [flags] KEY", false},
		{"GetTwoKeys", "", []string{"get", "a", "b"}, "usage: tenure get [flags] KEY (got 2 arguments)", false},
		{"UnknownCommand", "", []string{"frobnicate"}, `unknown command "frobnicate"`, false},
		{"ListBadLimit", "", []string{"list", "--limit", "many"}, "--limit: invalid value", false},
		{"ListLimitTooLarge", "", []string{"list", "--limit", "20000"}, "--limit: must be between 0 and 10000", false},
		{"ListUnknownLayer", "", []string{"list", "--layer", "attic"}, `--layer: unknown value "attic"`, false},
		{"ListUnknownStatus", "", []string{"list", "--status", "gone"}, `--status: unknown value "gone"`, false},
		{"ListUnknownScope", "", []string{"list", "--scope", "galaxy"}, `--scope: unknown value "galaxy"`, false},
		{"ListBadValidAt", "", []string{"list", "--valid-at", "yesterday"}, `--valid-at: "yesterday" is not a time`, false},
		{"ListBadTxFrom", "", []string{"list", "--tx-from", "2026-13-01"}, `--tx-from: "2026-13-01" is not a time`, false},
		{"ListBadTxUntil", "", []string{"list", "--tx-until", "now"}, `--tx-until: "now" is not a time`, false},
		{"ListBadCursor", "", []string{"list", "--cursor", "abc"}, "--cursor: not a cursor of this listing", false},
		{"ListBadAuthor", "", []string{"list", "--author", " ann"}, "--author: leading or trailing space", false},
		{"RetireRuleWithoutID", "", []string{"retire", "--rule", "archive"}, "--rule: applies only with --id", false},
		{"RetireUnknownRule", "", []string{"retire", "--id", "x", "--rule", "burn"}, `--rule: unknown value "burn"`, false},
		{"EndSessionNoID", "", []string{"end-session"}, "usage: tenure end-session [flags] SESSION_ID", false},
		{"PrincipalUnknownField", obj, []string{"put", "--principal", badPrincipal}, "principal.colour: unknown field (not a principal field)", false},
		{"PrincipalWrongType", obj, []string{"put", "--principal", typedPrincipal}, "principal.roles: want an array, got a string", false},
		{"PrincipalMalformed", obj, []string{"put", "--principal", brokenPrincipal}, "line 2, column 6: malformed JSON", false},
		{"PrincipalMissing", obj, []string{"put", "--principal", "/nonexistent/p.json"}, "--principal: cannot read principal file", false},
		{"PrincipalAuthority", obj, []string{"put", "--authority", "janitor"}, `principal.authority: unknown value "janitor"`, false},
		{"PrincipalClearance", obj, []string{"put", "--clearance", "secret"}, `principal.clearance: unknown value "secret"`, false},
		{"PrincipalEmptyTenant", obj, []string{"put", "--tenant", " acme"}, "principal.tenant_id: leading or trailing space", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := newDB(t)
			r := tenureCLI(t, tc.stdin, append(tc.args, "--db", db)...)
			if want := tenure.ExitCode(tenure.CodeInvalid); r.code != want {
				t.Errorf("exit %d, want %d", r.code, want)
			}
			if !strings.HasPrefix(r.stderr, "tenure: ") || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q, want tenure: ... %q", r.stderr, tc.want)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
			_, err := os.Stat(db)
			switch {
			case !tc.store && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("the database was opened before the input was validated (stat: %v)", err)
			case tc.store:
				if got := listed(t, db, "--status", "all"); len(got) != 0 {
					t.Errorf("invalid input wrote %v", got)
				}
			}
		})
	}
}

// jsonError is the --json error body.
type jsonError struct {
	Code    tenure.Code `json:"code"`
	Message string      `json:"message"`
	Field   string      `json:"field"`
}

func TestJSONErrors(t *testing.T) {
	db := newDB(t)
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		want  jsonError // Message is a substring
	}{
		{"WrongType", `{"key":"a","value":1,"confidence_score":"high"}`, []string{"put"},
			jsonError{tenure.CodeInvalid, "put: stdin: confidence_score: want a number, got a string", "confidence_score"}},
		{"StoreVocab", `{"key":"a","value":1,"layer":"attic"}`, []string{"put"},
			jsonError{tenure.CodeInvalid, `put object: layer: unknown value "attic"`, "layer"}},
		{"NotFound", "", []string{"get", "missing"},
			jsonError{tenure.CodeNotFound, `current value: key: no current value for "missing"`, "key"}},
		{"FlagError", "", []string{"get", "a", "--as-of-tx", "yesterday"},
			jsonError{tenure.CodeInvalid, `get: --as-of-tx: "yesterday" is not a time`, "--as-of-tx"}},
		{"UnknownFlag", "", []string{"list", "--colour"},
			jsonError{tenure.CodeInvalid, "flag provided but not defined: -colour", "--colour"}},
		{"UnknownCommand", "", []string{"frobnicate"},
			jsonError{tenure.CodeInvalid, `unknown command "frobnicate"`, ""}},
		{"Syntax", "{\n,", []string{"put"},
			jsonError{tenure.CodeInvalid, "line 2, column 1: malformed JSON", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tenureCLI(t, tc.stdin, append(tc.args, "--json", "--db", db)...)
			if want := tenure.ExitCode(tc.want.Code); r.code != want {
				t.Errorf("exit %d, want %d", r.code, want)
			}
			var got jsonError
			dec := json.NewDecoder(strings.NewReader(r.stderr))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("stderr is not a JSON error: %v\n%s", err, r.stderr)
			}
			if !strings.Contains(got.Message, tc.want.Message) {
				t.Errorf("message %q, want it to contain %q", got.Message, tc.want.Message)
			}
			got.Message = tc.want.Message
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("JSON error (-want +got):\n%s", diff)
			}
		})
	}
}
