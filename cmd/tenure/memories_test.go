package main

import (
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
)

func TestMemories(t *testing.T) {
	db := newDB(t)
	john := put(t, db, `{"content":"John is my cofounder; handles backend","memory":{"type":"people","entity_refs":["person:John Doe"],"subtype":{"factType":"relationship"},"importance":2}}`)
	home := put(t, db, `{"content":"Lives in Austin, Texas","memory":{"type":"profile","entity_refs":["person:local"],"attribute":"lives_in"}}`)
	if got, want := john.Object.Key, "people|person|john_doe|relationship"; got != want {
		t.Errorf("key = %q, want %q", got, want)
	}
	t.Run("List", func(t *testing.T) {
		all := mustJSON[[]tenure.Object](t, "", "memories", "list", "--db", db)
		if len(all) != 2 || all[0].ObjectID != john.Object.ObjectID {
			t.Errorf("list: want john (importance 2) first, got %+v", all)
		}
		people := mustJSON[[]tenure.Object](t, "", "memories", "list", "--type", "profile", "--db", db)
		if len(people) != 1 || people[0].ObjectID != home.Object.ObjectID {
			t.Errorf("--type profile: %+v", people)
		}
		byEntity := mustJSON[[]tenure.Object](t, "", "memories", "list", "--entity", "person:John Doe", "--db", db)
		if len(byEntity) != 1 || byEntity[0].ObjectID != john.Object.ObjectID {
			t.Errorf("--entity: %+v", byEntity)
		}
	})
	t.Run("Pin", func(t *testing.T) {
		res := mustJSON[tenure.WriteResult](t, "", "memories", "pin", home.Object.ObjectID, "--db", db)
		if m := res.Object.Memory; !m.Pinned || m.Level() != 3 {
			t.Errorf("pin: %+v", m)
		}
		out := mustCLI(t, "", "memories", "list", "--db", db).stdout
		if !strings.HasPrefix(out, home.Object.ObjectID+"  ACTIVE  importance 3 pinned") {
			t.Errorf("list after pin:\n%s", out)
		}
		mustCLI(t, "", "memories", "unpin", home.Object.ObjectID, "--db", db)
		res = mustJSON[tenure.WriteResult](t, "", "memories", "importance", home.Object.ObjectID, "0", "--db", db)
		if m := res.Object.Memory; m.Pinned || m.Level() != 0 {
			t.Errorf("unpin, importance 0: %+v", m)
		}
	})
	for _, tc := range []struct {
		name  string
		args  []string
		field string
	}{
		{"ErrType", []string{"list", "--type", "open_loop"}, "--type"},
		{"ErrEntity", []string{"list", "--entity", "robot:r2"}, "--entity"},
		{"ErrImportance", []string{"importance", john.Object.ObjectID, "5"}, "importance"},
		{"ErrFlag", []string{"pin", john.Object.ObjectID, "--type", "people"}, "--type"},
		{"ErrNotMemory", []string{"pin", put(t, db, `{"key":"plan.db","value":"ClickHouse"}`).Object.ObjectID}, "id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tenureCLI(t, "", append(append([]string{"memories"}, tc.args...), "--db", db, "--json")...)
			if r.code != tenure.ExitCode(tenure.CodeInvalid) || !strings.Contains(r.stderr, `"field": "`+tc.field+`"`) {
				t.Errorf("exit %d, stderr %s; want invalid naming %s", r.code, r.stderr, tc.field)
			}
		})
	}
	if r := tenureCLI(t, "", "memories", "pin", "nothing", "--db", db); r.code != tenure.ExitCode(tenure.CodeNotFound) {
		t.Errorf("pin nothing: exit %d, want not found", r.code)
	}
}
