package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/entity"
)

func TestEntitiesCLI(t *testing.T) {
	db := newDB(t)
	mustCLI(t, `[{"key":"a","content":"Makesh lives in Pune","canonical_entity_ids":["person:makesh"]},
{"key":"b","content":"Mukesh is a pilot","canonical_entity_ids":["person:Mukesh"]},
{"key":"c","content":"Sam plays chess","canonical_entity_ids":["person:sam"]},
{"key":"d","content":"Ravi is a chemist","canonical_entity_ids":["person:ravi"]}]`, "put", "--db", db)
	r := mustCLI(t, "", "entities", "pending", "--db", db)
	if !strings.Contains(r.stdout, "person:mukesh") || !strings.Contains(r.stdout, "pending (person:makesh 0.85)") {
		t.Fatalf("pending:\n%s", r.stdout)
	}
	r = mustCLI(t, "", "entities", "resolve", "--db", db, "person:Dr. Ravi")
	if r.stdout != "person:dr_ravi → link person:ravi 0.970\n  person:ravi 0.970 (normalized)\n" {
		t.Errorf("resolve:\n%q", r.stdout)
	}
	link := mustJSON[entity.Change](t, "", "entities", "pending", "link", "person:mukesh", "person:makesh", "--db", db, "--reason", "same person", "--json")
	if link.Op.Kind != entity.OpLink || link.Op.Reason != "same person" {
		t.Fatalf("link: %+v", link)
	}
	r = mustCLI(t, "", "entities", "show", "--db", db, "person:makesh")
	for _, want := range []string{`person:makesh (person) "Makesh": active`, "aliases: person:makesh, person:mukesh", "  v1", "  v2",
		link.Op.ID + " link person:mukesh → person:makesh [person:mukesh] by local"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, r.stdout)
		}
	}
	if r = mustCLI(t, "", "entities", "undo", "--db", db, link.Op.ID); !strings.Contains(r.stdout, "undone:") {
		t.Errorf("undo:\n%s", r.stdout)
	}
	mustCLI(t, "", "entities", "merge", "person:sam", "person:ravi", "--db", db)
	r = mustCLI(t, "", "entities", "split", "person:ravi", "--alias", "person:sam", "--label", "Sam", "--db", db)
	if !strings.Contains(r.stdout, "person:sam_2 v1 active: person:sam, person:sam_2") {
		t.Errorf("split:\n%s", r.stdout)
	}
	es := mustJSON[[]entity.Entity](t, "", "entities", "list", "--db", db, "--type", "person", "--json")
	if len(es) != 5 {
		t.Errorf("list: %d entities", len(es))
	}
	for _, tc := range []struct {
		name  string
		args  []string
		code  tenure.Code
		field string
	}{
		{"BadStatus", []string{"list", "--status", "gone"}, tenure.CodeInvalid, "--status"},
		{"FlagOfAnotherAction", []string{"list", "--alias", "x"}, tenure.CodeInvalid, "--alias"},
		{"SplitNotAlias", []string{"split", "person:ravi", "--alias", "person:zed"}, tenure.CodeInvalid, "--alias"},
		{"MergeUnknown", []string{"merge", "person:ravi", "person:nobody"}, tenure.CodeNotFound, "into"},
		{"MergeArgs", []string{"merge", "person:ravi"}, tenure.CodeInvalid, ""},
		{"UndoTwice", []string{"undo", link.Op.ID}, tenure.CodeConflict, "op_id"},
		{"OtherRegistry", []string{"list", "--registry", "bob", "--user", "ann", "--permissions", ""}, tenure.CodeNotFound, "--registry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tenureCLI(t, "", append(append([]string{"entities"}, tc.args...), "--db", db, "--json")...)
			var body struct {
				Code  tenure.Code `json:"code"`
				Field string      `json:"field"`
			}
			if err := json.Unmarshal([]byte(r.stderr), &body); err != nil {
				t.Fatalf("stderr %q: %v", r.stderr, err)
			}
			if r.code != tenure.ExitCode(tc.code) || body.Code != tc.code || body.Field != tc.field {
				t.Errorf("exit %d, %+v; want %s on %q", r.code, body, tc.code, tc.field)
			}
		})
	}
}

// TestEntitiesMergeReconciles: entities merge prints the stored claims its
// re-reconciliation changed, and entities undo those it restored.
func TestEntitiesMergeReconciles(t *testing.T) {
	db := newDB(t)
	put(t, db, `{"key":"makesh.city","content":"city: Pune","canonical_entity_ids":["person:Makesh"],"attribute":"city","valid_from":"2026-03-01T00:00:00Z"}`)
	put(t, db, `{"key":"mukesh.city","content":"city: Mumbai","canonical_entity_ids":["person:Mukesh"],"attribute":"city","valid_from":"2026-03-02T00:00:00Z"}`)
	merged := mustJSON[entity.Change](t, "", "entities", "merge", "person:mukesh", "person:makesh", "--db", db, "--json")
	if len(merged.Claims) != 1 || merged.Claims[0].Key != "makesh.city" || merged.Claims[0].To != tenure.StatusSuperseded {
		t.Fatalf("merge claims: %+v", merged.Claims)
	}
	if out := mustCLI(t, "", "entities", "undo", "--db", db, merged.Op.ID).stdout; !strings.Contains(out, "  makesh.city v3: superseded -> active  [") {
		t.Errorf("undo printed:\n%s", out)
	}
	out := mustCLI(t, "", "entities", "merge", "person:mukesh", "person:makesh", "--db", db).stdout
	if !strings.Contains(out, "  makesh.city v4: active -> superseded (valid_time)  [") {
		t.Errorf("merge printed:\n%s", out)
	}
}
